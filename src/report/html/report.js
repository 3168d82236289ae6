/* report.js — the interactive part of `tally html` (plain ES2017, no
 * library, no network; embedded in the page at build time).
 *
 * The page's data (the <script id="tally-data"> written by report_html.c,
 * packed: pageData below) holds the call tree in preorder (function and
 * depth of each node, its own value per metric, and in a diff the
 * baseline's), the functions, the timeline's tracks, the overview, the
 * annotated source of hot functions and the tree's values by time bin (a
 * range dragged on the timeline is then what every view shows).  Everything
 * else is derived here:
 * self values, per-function totals (counted once per stack), callers and
 * callees, the inverted (bottom-up) tree.  Views draw on demand; the flame
 * graph is a canvas that skips frames narrower than half a pixel.
 */
'use strict';
(async function () {
  /* The page's data: gzip in base64 (report_html_pack.c), unpacked by the
   * browser's DecompressionStream (Chromium 80, Firefox 113, Safari 16.4);
   * plain JSON where the element says no encoding. */
  async function pageData() {
    const el = document.getElementById('tally-data');
    if (el.dataset.encoding !== 'gzip+base64') return JSON.parse(el.textContent);
    if (typeof DecompressionStream !== 'function') {
      throw new Error('this browser cannot unpack the page\'s data: it has no DecompressionStream ' +
        '(Chromium 80, Firefox 113, Safari 16.4 and later have it)');
    }
    /* atob and a loop: 7 ms for 0.6 MB, where fetch() of a data: URL took 65-150 */
    let bin, text;
    try {
      bin = atob(el.textContent);
    } catch (e) {
      throw new Error(`its base64 is damaged (${e.message})`);
    }
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    try {
      text = await new Response(stream).text();
    } catch (e) {
      throw new Error(`its ${bytes.length} bytes of gzip are damaged or cut short (${e.message})`);
    }
    return JSON.parse(text);
  }
  let D;
  try {
    D = await pageData();
  } catch (e) {
    document.querySelector('main').textContent = 'tally: the page\'s data cannot be read: ' + e.message;
    throw e;
  }
  const $ = (id) => document.getElementById(id);
  const M = D.metrics;
  const NM = M.length;
  const DIFF = !!D.diff;
  const state = { metric: 0, view: 'flame', zoom: 0, izoom: 0, search: null, query: '', selected: -1, range: null,
    sortCol: 'excl', sortDesc: true, merge: false, thread: -1 };
  const hooks = { ready: false, drawn: 0, matched: 0, matchedValue: 0 };
  window.tally = hooks;
  hooks.data = D;             /* for the checks (tests/js) */

  /* ---- numbers ---------------------------------------------------------- */
  function fmt(v, m) {
    const u = M[m].unit;
    if (Math.abs(v) < 0.5) v = 0;   /* below the resolution (no "-0") */
    const a = Math.abs(v);
    if (u === 's') {            /* values in µs */
      if (a >= 1e6) return (v / 1e6).toFixed(3) + ' s';
      if (a >= 1e3) return (v / 1e3).toFixed(2) + ' ms';
      return v.toFixed(0) + ' µs';
    }
    const suf = u === 'B' ? 'B' : '';
    if (a >= 1e9) return (v / 1e9).toFixed(2) + ' G' + suf;
    if (a >= 1e6) return (v / 1e6).toFixed(2) + ' M' + suf;
    if (a >= 1e4) return (v / 1e3).toFixed(1) + ' k' + suf;
    return String(Math.round(v)) + (suf ? ' ' + suf : '');
  }
  const fmtUs = (us) => (us >= 1e6 ? (us / 1e6).toFixed(3) + ' s' : us >= 1e3 ? (us / 1e3).toFixed(2) + ' ms' : us + ' µs');
  const pct = (v, t) => (t ? (100 * v / t).toFixed(2) : '0.00') + '%';
  /* A sampled metric's share carries its sampling error, as `tally report
   * --errors` gives it (report_share_error): 1 s.d. of the binomial share
   * of the node's n of the N samples shown, in points.  '' for the
   * metrics of traced events, which are counted, not sampled. */
  const SI = M.findIndex((x) => x.name === 'samples');
  const err = (m, n, N) => (M[m].sampled && SI >= 0 && N > 0
    ? ` ±${(100 * Math.sqrt(Math.max(n, 0) * Math.max(1 - n / N, 0)) / N).toFixed(2)}` : '');
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

  /* ---- the tree --------------------------------------------------------- */
  /* Preorder arrays: func, parent, total per metric (b: this run; a: the
   * baseline of a diff), children lists sorted by the shown metric. */
  /* A node's children are kid[ks[i]] .. kid[ks[i + 1] - 1] (kidsOf): two
   * typed arrays, not an array per node, whose allocation (130,000 of them
   * for the 2 M-sample bench page) cost more than the rest of the build. */
  function buildTree(f, depth, vals, base, own) {
    const n = f.length;
    const parent = new Int32Array(n);
    const ks = new Int32Array(n + 1), kid = new Int32Array(Math.max(n - 1, 0));
    let dmax = 0;
    for (let i = 0; i < n; i++) if (depth[i] > dmax) dmax = depth[i];
    const stack = new Int32Array(dmax + 1);   /* the path to node i */
    for (let i = 0; i < n; i++) {
      const d = depth[i];
      const p = d ? stack[d - 1] : -1;
      parent[i] = p;
      if (p >= 0) ks[p + 1]++;
      stack[d] = i;
    }
    /* own values (the page's data, D.tree.vo and .ao) summed into totals,
     * children first: the totals tally html rounded, exactly */
    const total = (v) => {
      const s = Float64Array.from(v);
      for (let i = n - 1; i > 0; i--) if (parent[i] >= 0) s[parent[i]] += s[i];
      return s;
    };
    if (own) {
      vals = vals.map(total);
      base = base ? base.map(total) : null;
    }
    for (let i = 0; i < n; i++) ks[i + 1] += ks[i];
    const at = ks.slice(0, n);
    for (let i = 1; i < n; i++) if (parent[i] >= 0) kid[at[parent[i]]++] = i;
    const self = (v) => {
      if (!v) return null;
      const s = Float64Array.from(v);
      for (let i = 1; i < n; i++) if (parent[i] >= 0) s[parent[i]] -= v[i];
      /* values are whole µs, each node rounded: a self below 0 is rounding */
      for (let i = 0; i < n; i++) if (s[i] < 0) s[i] = 0;
      return s;
    };
    return { n, f, parent, ks, kid, b: vals, a: base,
      bs: vals.map(self), as: base ? base.map(self) : null, sortedFor: -1 };
  }
  /* Node i's children (a view: in the order of the last sortKids of t). */
  const kidsOf = (t, i) => t.kid.subarray(t.ks[i], t.ks[i + 1]);
  const FULL = buildTree(D.tree.f, D.tree.d, D.tree.vo, D.tree.ao, true);
  let T = FULL;               /* the whole run, or the range selected on the timeline */

  /* ---- processes merged by program -------------------------------------- */
  /* A run of several processes has a node per process under the root (the
   * last D.funcs are the processes, in D.timeline.processes' order); merged,
   * the processes of one program are one node, "cc1 (35 processes)", and
   * their subtrees are summed path by path. */
  const PROCS = (D.timeline && D.timeline.processes) || [];
  const PROC0 = D.funcs.length - PROCS.length;
  const progOf = new Map();           /* process func -> its program's func */
  {
    const byProg = new Map();
    PROCS.forEach((p, i) => { const k = p.prog; if (!byProg.has(k)) byProg.set(k, []); byProg.get(k).push(PROC0 + i); });
    for (const [prog, fs] of byProg) {
      const pf = D.funcs.length;
      D.funcs.push([fs.length > 1 ? `${prog} (${fs.length} processes)` : PROCS[fs[0] - PROC0].label, D.funcs[fs[0]][1]]);
      for (const f of fs) progOf.set(f, pf);
    }
  }
  const hasProcNodes = () => kidsOf(FULL, 0).some((c) => FULL.f[c] >= PROC0 && FULL.f[c] < PROC0 + PROCS.length);
  const MERGEABLE = !DIFF && PROCS.length > 1 && progOf.size > new Set(progOf.values()).size && hasProcNodes();
  /* Canvas c sized to width x height CSS pixels at the screen's pixel
   * ratio, cleared: its 2D context, in CSS pixels, with the font of `size`
   * and text centred on y (the flame graph, the timeline, the stack chart). */
  function sizedCanvas(c, width, height, size) {
    const dpr = window.devicePixelRatio || 1;
    c.width = Math.floor(width * dpr); c.height = Math.floor(height * dpr);
    c.style.width = width + 'px'; c.style.height = height + 'px';
    const g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    g.font = size + ' system-ui, sans-serif';
    g.textBaseline = 'middle';
    return g;
  }

  /* A tree built node by node under a root: child(p, fn) is parent p's
   * child of function fn (made, its values 0, if new); add(c, m, b, a)
   * adds to node c's values of metric m; done() gives it to buildTree, in
   * preorder.  Both merged and bottom-up trees are built so. */
  function treeBuilder(withA, rootB, rootA) {
    const f = [0], depth = [0], vb = M.map((_, m) => [rootB ? rootB[m] : 0]);
    const va = withA ? M.map((_, m) => [rootA ? rootA[m] : 0]) : null;
    const childMap = [new Map()];
    return {
      setRoot(fn) { f[0] = fn; },
      child(p, fn) {
        let c = childMap[p].get(fn);
        if (c === undefined) {
          c = f.length;
          f.push(fn); depth.push(depth[p] + 1); childMap.push(new Map());
          for (let m = 0; m < NM; m++) { vb[m].push(0); if (va) va[m].push(0); }
          childMap[p].set(fn, c);
        }
        return c;
      },
      add(c, m, b, a) { vb[m][c] += b; if (va) va[m][c] += a; },
      done() {
        const order = [], walk = [0];
        while (walk.length) {
          const x = walk.pop();
          order.push(x);
          const cs = [...childMap[x].values()];
          for (let k = cs.length - 1; k >= 0; k--) walk.push(cs[k]);
        }
        const pick = (arr) => order.map((x) => arr[x]);
        return buildTree(pick(f), pick(depth), vb.map(pick), va ? va.map(pick) : null);
      },
    };
  }

  /* The tree t with each node's function mapped by fmap, siblings of one
   * function merged (values summed), in preorder for buildTree. */
  function mergeTree(t, fmap) {
    const tb = treeBuilder(!!t.a, M.map((_, m) => t.b[m][0]), t.a ? M.map((_, m) => t.a[m][0]) : null);
    tb.setRoot(t.f[0]);
    const at = new Int32Array(t.n);
    for (let i = 1; i < t.n; i++) {
      const c = tb.child(at[t.parent[i]], fmap(t.f[i]));
      for (let m = 0; m < NM; m++) tb.add(c, m, t.b[m][i], t.a ? t.a[m][i] : 0);
      at[i] = c;
    }
    return tb.done();
  }
  const shaped = (t) => (state.merge && MERGEABLE ? mergeTree(t, (fn) => (progOf.has(fn) ? progOf.get(fn) : fn)) : t);

  /* Each node's children by value of metric m, largest first (stable):
   * short lists by insertion in place, as most are. */
  function sortKids(t, m) {
    if (t.sortedFor === m) return;
    const b = t.b[m], a = t.a ? t.a[m] : null, kid = t.kid;
    const before = (x, y) => b[x] > b[y] || (b[x] === b[y] && a !== null && a[x] > a[y]);
    for (let i = 0; i < t.n; i++) {
      const lo = t.ks[i], hi = t.ks[i + 1];
      if (hi - lo < 2) continue;
      if (hi - lo > 32) {
        kid.subarray(lo, hi).sort((x, y) => b[y] - b[x] || (a ? a[y] - a[x] : 0));
        continue;
      }
      for (let j = lo + 1; j < hi; j++) {
        const c = kid[j];
        let k = j;
        for (; k > lo && before(c, kid[k - 1]); k--) kid[k] = kid[k - 1];
        kid[k] = c;
      }
    }
    t.sortedFor = m;
  }

  /* The bottom-up tree: one path per node with self value, leaf first. */
  let INV = null;
  function inverted() {
    if (INV) return INV;
    const tb = treeBuilder(!!DIFF);
    const path = [];
    for (let i = 1; i < T.n; i++) {
      let any = false;
      for (let m = 0; m < NM; m++) if (T.bs[m][i] || (T.as && T.as[m][i])) any = true;
      if (!any) continue;
      path.length = 0;
      for (let j = i; j > 0; j = T.parent[j]) path.push(T.f[j]);
      for (let m = 0; m < NM; m++) tb.add(0, m, T.bs[m][i], DIFF ? T.as[m][i] : 0);
      let at = 0;
      for (const fn of path) {
        at = tb.child(at, fn);
        for (let m = 0; m < NM; m++) tb.add(at, m, T.bs[m][i], DIFF ? T.as[m][i] : 0);
      }
    }
    INV = tb.done();
    return INV;
  }

  /* Per function: exclusive and inclusive (once per stack) per metric. */
  function funcTotals() {
    const nf = D.funcs.length;
    const mk = () => M.map(() => new Float64Array(nf));
    const r = { excl: mk(), incl: mk(), exclA: DIFF ? mk() : null, inclA: DIFF ? mk() : null };
    const onPath = new Int32Array(nf);
    const stack = [];
    for (let i = 0; i < T.n; i++) {
      while (stack.length && T.parent[i] !== stack[stack.length - 1]) onPath[T.f[stack.pop()]]--;
      const fn = T.f[i];
      if (i) {
        for (let m = 0; m < NM; m++) {
          r.excl[m][fn] += T.bs[m][i];
          if (DIFF) r.exclA[m][fn] += T.as[m][i];
          if (!onPath[fn]) { r.incl[m][fn] += T.b[m][i]; if (DIFF) r.inclA[m][fn] += T.a[m][i]; }
        }
      }
      onPath[fn]++;
      stack.push(i);
    }
    return r;
  }
  let FT = funcTotals();

  /* ---- a range of the timeline (D.slices: node values by time bin) --------- */
  const S = D.slices;
  /* The tree of bins [b0, b1): each node's own values summed over the
   * bins, then every node's added to its parent's, children first. */
  function rangeTree(b0, b1) {
    const vals = M.map(() => new Float64Array(FULL.n));
    for (let i = 0; i < S.b.length; i++) {
      if (S.b[i] < b0 || S.b[i] >= b1) continue;
      for (let m = 0; m < NM; m++) vals[m][S.n[i]] += S.v[m][i];
    }
    for (let i = FULL.n - 1; i > 0; i--) for (let m = 0; m < NM; m++) vals[m][FULL.parent[i]] += vals[m][i];
    return buildTree(D.tree.f, D.tree.d, vals, null);
  }
  /* Show [us0, us1) µs of the timeline in every view (null: the whole run). */
  function setRange(us0, us1, quiet) {
    if (us0 === null || !S) {
      state.range = null;
      T = shaped(FULL);
    } else {
      const span = D.timeline.span_us || 1;
      const b0 = Math.max(0, Math.floor(Math.min(us0, us1) * S.bins / span));
      const b1 = Math.min(S.bins, Math.max(b0 + 1, Math.ceil(Math.max(us0, us1) * S.bins / span)));
      state.range = [b0, b1, b0 * span / S.bins, b1 * span / S.bins];
      T = shaped(rangeTree(b0, b1));
    }
    INV = null;
    FT = funcTotals();
    state.zoom = state.izoom = 0;
    if (!quiet) {
      views[state.view]();
      drawCallers();
      saveHash(true);
    }
    hooks.rangeTotal = T.b[state.metric][0];
    hooks.rangeUs = state.range ? [state.range[2], state.range[3]] : null;
    return !!S;
  }
  const shownTotal = (m) => (state.range ? T.b[m][0] : M[m].total);

  /* Callers and callees of function fn from the tree (values of each
   * outermost occurrence, so recursion counts once). */
  function callersCallees(fn, m) {
    const callers = new Map(), callees = new Map();
    const add = (map, k, v) => map.set(k, (map.get(k) || 0) + v);
    const inside = new Int32Array(T.n);
    for (let i = 1; i < T.n; i++) {
      const p = T.parent[i];
      inside[i] = inside[p] || (T.f[p] === fn && p > 0) ? 1 : 0;
      if (T.f[i] !== fn) continue;
      if (!inside[i]) add(callers, p > 0 ? T.f[p] : -1, T.b[m][i]);
      for (const c of kidsOf(T, i)) if (T.f[c] !== fn) add(callees, T.f[c], T.b[m][c]);
    }
    const list = (map) => [...map.entries()].sort((x, y) => y[1] - x[1]);
    return { callers: list(callers), callees: list(callees) };
  }

  /* ---- colours ---------------------------------------------------------- */
  function hash(s) { let h = 2166136261; for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619); return h >>> 0; }
  const colourCache = new Map();
  function colour(fn) {
    let c = colourCache.get(fn);
    if (!c) {
      const h = hash(D.funcs[fn][0]);
      const art = D.funcs[fn][0].startsWith('<') || D.funcs[fn][0].startsWith('[');
      c = art ? `hsl(210,10%,${70 + (h % 10)}%)` : `hsl(${10 + (h % 40)},${60 + (h >> 8) % 25}%,${55 + (h >> 16) % 15}%)`;
      colourCache.set(fn, c);
    }
    return c;
  }
  function diffColour(t, m, i) {
    const a = t.a[m][i], b = t.b[m][i];
    const ta = M[m].totalA || 1, tb = M[m].total || 1;
    const d = D.diff.normalised ? b / tb - a / ta : (b - a) / Math.max(ta, tb);
    const k = Math.min(1, Math.abs(d) * 20);
    return d > 0 ? `hsl(0,${30 + 60 * k}%,${90 - 30 * k}%)` : `hsl(215,${30 + 60 * k}%,${90 - 30 * k}%)`;
  }

  /* ---- flame graph (top-down) and its inverted form ------------------------ */
  const ROW = 17;
  const fg = { canvas: $('flame'), rects: [], tree: null };
  function drawFlame() {
    const inv = state.view === 'inverted';
    const t = inv ? inverted() : T;
    const m = state.metric;
    const canvas = fg.canvas;
    const wrap = canvas.parentElement;
    const root = inv ? state.izoom : state.zoom;
    sortKids(t, m);
    fg.tree = t;
    fg.rects = [];
    /* depth of the tree below root (bounded by what is visible) */
    const width = wrap.clientWidth || 1000;
    const total = t.b[m][root] || 1;
    const scale = width / total;
    const ancestors = [];
    for (let j = root; j >= 0; j = t.parent[j]) ancestors.unshift(j);
    const items = [];
    let maxDepth = 0;
    ancestors.forEach((j, k) => { items.push([j, 0, width, k]); });
    const base = ancestors.length - 1;
    const stack = [[root, 0, base]];
    while (stack.length) {
      const [i, x, dep] = stack.pop();
      if (i !== root) items.push([i, x, t.b[m][i] * scale, dep]);
      if (dep > maxDepth) maxDepth = dep;
      let cx = x;
      for (const c of kidsOf(t, i)) {
        const w = t.b[m][c] * scale;
        if (w >= 0.5) stack.push([c, cx, dep + 1]);
        cx += w;
      }
    }
    const height = (maxDepth + 1) * ROW + 4;
    const g = sizedCanvas(canvas, width, height, '11px');
    let matched = 0;
    const re = state.search;
    const matchedNodes = new Set();
    for (const [i, x, w, dep] of items) {
      const fn = t.f[i];
      const name = i === 0 ? 'all' : D.funcs[fn][0];
      const y = dep * ROW;
      const hit = re && i !== 0 && re.test(name);
      if (hit) matchedNodes.add(i);
      g.fillStyle = hit ? '#e040e0' : (t.a && i !== 0 ? diffColour(t, m, i) : (i === 0 ? '#cfd3d8' : colour(fn)));
      g.fillRect(x, y, Math.max(w - 0.5, 0.5), ROW - 1);
      if (w > 30) {
        g.fillStyle = '#000';
        const label = name.length * 6 > w - 6 ? name.slice(0, Math.max(0, Math.floor((w - 6) / 6) - 1)) + '…' : name;
        g.fillText(label, x + 3, y + ROW / 2);
      }
      fg.rects.push([x, y, w, i]);
    }
    /* the matched share: each matched subtree counted once */
    if (re) {
      const seen = new Uint8Array(t.n);
      for (let i = 1; i < t.n; i++) {
        const hit = re.test(D.funcs[t.f[i]][0]);
        const p = t.parent[i];
        seen[i] = (p >= 0 && seen[p]) || hit ? 1 : 0;
        if (hit && !(p >= 0 && seen[p])) matched += t.b[m][i];
      }
    }
    hooks.drawn = items.length;
    hooks.matched = matchedNodes.size;
    hooks.matchedValue = matched;
    const zoomName = root ? D.funcs[t.f[root]][0] : '';
    hooks.zoomName = zoomName;
    $('flame-info').innerHTML = `<span><b>${esc(M[m].title)}</b> ${fmt(t.b[m][0], m)}` +
      (DIFF ? ` (baseline ${fmt(t.a[m][0], m)}; <span class=up>red grew</span>, <span class=down>blue shrank</span>` +
        `${D.diff.normalised ? ' as a share of the run' : ''})` : '') + '</span>' +
      (state.range ? `<span>range <b>${fmtUs(Math.round(state.range[2]))} – ${fmtUs(Math.round(state.range[3]))}</b> of the timeline</span>` +
        '<button id="unrange">whole run</button>' : '') +
      (root ? `<span>zoomed on <b>${esc(zoomName)}</b>: ${fmt(t.b[m][root], m)}, ${pct(t.b[m][root], t.b[m][0])}` +
        `${err(m, t.b[SI] ? t.b[SI][root] : 0, t.b[SI] ? t.b[SI][0] : 0)}</span>` +
        '<button id="unzoom">reset zoom</button>' : '<span>click a frame to zoom</span>') +
      (re ? `<span>matched: <b>${pct(matched, t.b[m][0])}</b></span>` : '') +
      (MERGEABLE ? `<label><input type=checkbox id=merge-procs${state.merge ? ' checked' : ''}> merge processes by program</label>` : '');
    const ur = $('unrange');
    if (ur) ur.onclick = () => setRange(null);
    const un = $('unzoom');
    if (un) un.onclick = resetZoom;
    const mp = $('merge-procs');
    if (mp) mp.onchange = () => { state.merge = mp.checked; setRange(state.range ? state.range[2] : null, state.range ? state.range[3] : null); };
  }

  function frameAt(ev) {
    const r = fg.canvas.getBoundingClientRect();
    const x = ev.clientX - r.left, y = ev.clientY - r.top;
    for (const q of fg.rects) if (x >= q[0] && x < q[0] + q[2] && y >= q[1] && y < q[1] + ROW) return q[3];
    return -1;
  }
  fg.canvas.addEventListener('click', (ev) => {
    const i = frameAt(ev);
    if (i < 0) return;
    if (state.view === 'inverted') state.izoom = i; else state.zoom = i;
    if (i > 0) select(fg.tree.f[i], false);
    drawFlame();
    saveHash(true);
  });
  fg.canvas.addEventListener('mousemove', (ev) => {
    const i = frameAt(ev);
    if (i < 0) return tip(null);
    const t = fg.tree, m = state.metric;
    const fn = t.f[i];
    let s = `${i ? D.funcs[fn][0] : 'all'}${i && D.funcs[fn][1] ? '  (' + D.objs[D.funcs[fn][1]] + ')' : ''}\n` +
      (fn >= PROC0 && fn < PROC0 + PROCS.length && PROCS[fn - PROC0].argv ? `command: ${PROCS[fn - PROC0].argv}\n` : '') +
      `${M[m].title}: ${fmt(t.b[m][i], m)} (${pct(t.b[m][i], t.b[m][0])}` +
      `${err(m, t.b[SI] ? t.b[SI][i] : 0, t.b[SI] ? t.b[SI][0] : 0)}), self ${fmt(t.bs[m][i], m)}`;
    if (t.a) s += `\nbaseline: ${fmt(t.a[m][i], m)} (${pct(t.a[m][i], t.a[m][0])}), change ${fmt(t.b[m][i] - t.a[m][i], m)}`;
    tip(s, ev);
  });
  fg.canvas.addEventListener('mouseleave', () => tip(null));
  /* test hook: the root's children as drawn, [name, value] */
  hooks.topFrames = () => Array.from(kidsOf(fg.tree, 0), (c) => [D.funcs[fg.tree.f[c]][0], fg.tree.b[state.metric][c]]);
  /* test hook: the client rectangle of the first drawn frame named `name` */
  hooks.frameRect = (name) => {
    const r = fg.canvas.getBoundingClientRect();
    for (const q of fg.rects) if (q[3] && D.funcs[fg.tree.f[q[3]]][0] === name) return { x: r.left + q[0], y: r.top + q[1], w: q[2], h: ROW };
    return null;
  };

  function tip(text, ev) {
    const el = $('tip');
    if (!text) { el.style.display = 'none'; return; }
    el.textContent = text;
    el.style.display = 'block';
    el.style.left = Math.min(ev.clientX + 12, window.innerWidth - el.offsetWidth - 4) + 'px';
    el.style.top = (ev.clientY + 14) + 'px';
  }

  /* ---- functions table, callers and callees --------------------------------- */
  function funcRows() {
    const m = state.metric;
    const rows = [];
    for (let fn = 0; fn < D.funcs.length; fn++) {
      const any = FT.incl[m][fn] || (DIFF && FT.inclA[m][fn]);
      if (any) rows.push(fn);
    }
    const key = {
      excl: (fn) => FT.excl[m][fn], incl: (fn) => FT.incl[m][fn],
      exclA: (fn) => FT.exclA[m][fn], delta: (fn) => FT.excl[m][fn] - FT.exclA[m][fn],
      adelta: (fn) => Math.abs(FT.incl[m][fn] - FT.inclA[m][fn]), name: (fn) => D.funcs[fn][0],
      obj: (fn) => D.objs[D.funcs[fn][1]] || '',
    }[state.sortCol];
    rows.sort((x, y) => {
      const a = key(x), b = key(y);
      const c = typeof a === 'string' ? a.localeCompare(b) : a - b;
      return state.sortDesc ? -c : c;
    });
    return rows;
  }
  /* The functions table's error of function fn's share (exclusive, or
   * incl): with `tally html --errors=bins` (D.binErrors) the whole run's
   * from time bins, as `tally report --errors=bins` has it; under a range
   * of the timeline, or without bins, from the function's sample count
   * (err).  '' for a metric of traced events. */
  const BE = D.binErrors || null;
  function ftErr(m, fn, incl) {
    if (!M[m].sampled || SI < 0) return '';
    if (BE && !state.range) {
      const e = (incl ? BE.incl : BE.excl)[fn];
      return e === null || e === undefined ? '' : `<span class=err> ±${e.toFixed(2)}</span>`;
    }
    const e = err(m, (incl ? FT.incl : FT.excl)[SI][fn], shownTotal(SI));
    return e ? `<span class=err>${e}</span>` : '';
  }
  /* What the table's ± are, said under it. */
  function ftErrNote(m) {
    if (!M[m].sampled || SI < 0) return '';
    if (BE && !state.range)
      return `±: one standard error of the share, in points, by batch means over its shares in ${BE.bins} ` +
        `bins of ${BE.width_s.toFixed(3)} s from ${BE.from_s.toFixed(3)} s (tally report --errors=bins)`;
    return '±: one standard deviation of the share\'s sampling error, in points, from the function\'s ' +
      'sample count (tally report --errors)' + (BE ? '; the time bins are the whole run\'s, not the range\'s' : '');
  }
  function drawFunctions() {
    const m = state.metric;
    const total = shownTotal(m), totalA = M[m].totalA;
    const cols = DIFF ?
      [['exclA', 'Excl. before'], ['excl', 'Excl. after'], ['delta', 'Excl. change'], ['adelta', 'Incl. change'], ['name', 'Name'], ['obj', 'Object']] :
      [['excl', 'Excl. ' + M[m].title], ['incl', 'Incl. ' + M[m].title], ['name', 'Name'], ['obj', 'Object']];
    const rows = funcRows();
    const re = state.search;
    const matched = re ? rows.filter((fn) => re.test(D.funcs[fn][0])) : rows;
    const shown = matched.slice(0, 500);
    let h = '<table id="ftable"><thead><tr>' + cols.map(([k, t]) =>
      `<th data-k="${k}" class="${k === 'name' || k === 'obj' ? 'name' : ''}${state.sortCol === k ? ' sorted' : ''}">${esc(t)}</th>`).join('') +
      '</tr></thead><tbody>';
    for (const fn of shown) {
      const cells = DIFF ? [
        fmt(FT.exclA[m][fn], m) + ` <span class=pct>${pct(FT.exclA[m][fn], totalA)}</span>`,
        fmt(FT.excl[m][fn], m) + ` <span class=pct>${pct(FT.excl[m][fn], total)}</span>`,
        change(FT.exclA[m][fn], FT.excl[m][fn], m),
        change(FT.inclA[m][fn], FT.incl[m][fn], m),
      ] : [
        fmt(FT.excl[m][fn], m) + ` <span class=pct>${pct(FT.excl[m][fn], total)}</span>${ftErr(m, fn, false)}`,
        fmt(FT.incl[m][fn], m) + ` <span class=pct>${pct(FT.incl[m][fn], total)}</span>${ftErr(m, fn, true)}`,
      ];
      const tag = DIFF && !FT.inclA[m][fn] ? ' <b class=up>new</b>' : DIFF && !FT.incl[m][fn] ? ' <b class=down>gone</b>' : '';
      h += `<tr class="fn${fn === state.selected ? ' selected' : ''}${re ? ' match' : ''}" data-f="${fn}">` +
        cells.map((c) => `<td>${c}</td>`).join('') +
        `<td class=name>${esc(D.funcs[fn][0])}${tag}</td><td class=obj>${esc(D.objs[D.funcs[fn][1]] || '')}</td></tr>`;
    }
    h += '</tbody></table>';
    const en = DIFF ? '' : ftErrNote(m);
    hooks.errorsNote = en;
    if (en) h += `<p class=note id=ferr-note>${esc(en)}</p>`;
    /* rows the search hid are not "more rows": only those past the first 500 it kept */
    if (matched.length > shown.length) h += `<p class=note>${matched.length - shown.length} more rows (search to narrow)</p>`;
    $('functions-table').innerHTML = h;
    for (const th of $('functions-table').querySelectorAll('th')) th.onclick = () => {
      const k = th.dataset.k;
      state.sortDesc = state.sortCol === k ? !state.sortDesc : k !== 'name' && k !== 'obj';
      state.sortCol = k;
      drawFunctions();
    };
    for (const tr of $('functions-table').querySelectorAll('tr.fn')) tr.onclick = () => select(+tr.dataset.f, true);
    drawCallers();
  }
  /* B - A and its share of A; a change below the resolution shown is 0,
   * with no sign and no share. */
  function change(a, b, m) {
    const d = b - a;
    const shown = fmt(d, m);
    if (!/[1-9]/.test(shown)) return `<span>${fmt(0, m)}</span>`;
    const p = a > 0 ? (100 * d / a).toFixed(1) : '';
    const r = p && /[1-9]/.test(p) ? ` <span class=pct>${d > 0 ? '+' : ''}${p}%</span>` : '';
    return `<span class="${d > 0 ? 'up' : 'down'}">${d > 0 ? '+' : ''}${shown}</span>${r}`;
  }
  function select(fn, fromTable) {
    state.selected = fn;
    if (state.view === 'functions' || fromTable) drawFunctions();
    drawCallers();
  }
  function drawCallers() {
    const fn = state.selected;
    for (const id of ['cc-functions', 'cc-flame']) {
      const el = $(id);
      if (!el) continue;
      if (fn < 0) { el.innerHTML = ''; continue; }
      const m = state.metric;
      const { callers, callees } = callersCallees(fn, m);
      const list = (title, arr) => `<div><h3>${title}</h3><table>` + arr.slice(0, 30).map(([f, v]) =>
        `<tr class=fn data-f="${f}"><td>${fmt(v, m)}</td><td class=name>${f < 0 ? '&lt;Total&gt;' : esc(D.funcs[f][0])}</td></tr>`).join('') + '</table></div>';
      el.innerHTML = list('Callers', callers) +
        `<div><h3>${esc(D.funcs[fn][0])}</h3><div class=kv><div>exclusive</div><div>${fmt(FT.excl[m][fn], m)} (${pct(FT.excl[m][fn], shownTotal(m))}` +
        `${SI >= 0 ? err(m, FT.excl[SI][fn], shownTotal(SI)) : ''})</div>` +
        `<div>inclusive</div><div>${fmt(FT.incl[m][fn], m)} (${pct(FT.incl[m][fn], shownTotal(m))}` +
        `${SI >= 0 ? err(m, FT.incl[SI][fn], shownTotal(SI)) : ''})</div>` +
        `<div>object</div><div>${esc(D.objs[D.funcs[fn][1]] || '')}</div></div></div>` +
        list('Callees', callees);
      for (const tr of el.querySelectorAll('tr.fn')) tr.onclick = () => { if (+tr.dataset.f >= 0) select(+tr.dataset.f, false); };
    }
  }

  /* ---- timeline ------------------------------------------------------------- */
  const TL = D.timeline;
  const TROW = 22;
  let drag = null;             /* [from, to] µs while dragging on the timeline */
  function drawTimeline() {
    const canvas = $('timeline');
    const width = canvas.parentElement.clientWidth || 1000;
    const LABEL = 180;
    const plot = width - LABEL - 8;
    /* all the tracks, or the one kept (a click on its name) */
    const kept = state.thread >= 0 ? TL.tracks[state.thread] : null;
    const tracks = kept ? [kept] : TL.tracks;
    const curves = (TL.procs || []).filter((c) => !kept || c.group === kept.group);  /* record --process-samples: a row of curves per process */
    const CROW = 48;
    const curvesY = Math.max(1, tracks.length) * TROW;
    const height = curvesY + curves.length * CROW + 20;
    const g = sizedCanvas(canvas, width, height, '11px');
    const span = TL.span_us || 1;
    const X = (us) => LABEL + plot * us / span;
    const binUs = span / TL.bins;
    let group = null;
    hooks.trackLabels = [];
    tracks.forEach((t, k) => {
      const y = k * TROW;
      /* a process's first track: its command line under the thread's name */
      const argv = t.group !== group && PROCS[t.proc] ? PROCS[t.proc].argv.replace(/^[^ ]*\//, '') : '';
      if (t.group !== group) { group = t.group; g.fillStyle = '#eef0f3'; g.fillRect(0, y, width, 1); }
      if (kept) { g.fillStyle = '#dfe9ff'; g.fillRect(0, y, LABEL - 4, TROW); }
      g.fillStyle = '#333';
      if (argv) {
        g.fillText(t.name.slice(0, 30), 4, y + 7);
        g.font = '9px system-ui, sans-serif'; g.fillStyle = '#6a6f75';
        g.fillText(argv.length > 36 ? argv.slice(0, 35) + '…' : argv, 4, y + 17);
        g.font = '11px system-ui, sans-serif';
      } else {
        g.fillText(t.name.slice(0, 30), 4, y + TROW / 2);
      }
      hooks.trackLabels.push(argv ? [t.name, argv] : [t.name]);
      if (t.cpu) t.cpu.forEach((v, b) => {
        if (!v) return;
        const u = Math.min(1, v / binUs);
        g.fillStyle = `rgba(216,80,32,${0.15 + 0.85 * u})`;
        g.fillRect(X(b * binUs), y + 3, Math.max(1, plot / TL.bins), TROW - 10);
      });
      g.fillStyle = 'rgba(40,90,200,0.75)';
      for (const iv of t.iv || []) g.fillRect(X(iv[0]), y + TROW - 7, Math.max(1, plot * iv[1] / span), 5);
    });
    /* each process's memory over time: resident (teal) and, with -H, the
     * live heap (purple) with its peak marked; one scale per row */
    const fmtB = (v) => v >= 1 << 30 ? (v / (1 << 30)).toFixed(2) + ' GiB' : v >= 1 << 20 ? (v / (1 << 20)).toFixed(1) + ' MiB'
      : v >= 1024 ? (v / 1024).toFixed(0) + ' KiB' : v + ' B';
    hooks.curves = [];
    curves.forEach((c, i) => {
      const y = curvesY + i * CROW;
      g.fillStyle = '#eef0f3'; g.fillRect(0, y, width, 1);
      const max = Math.max(1, ...c.rss, ...(c.heap || []), c.peak ? c.peak[1] : 0);
      const Y = (v) => y + CROW - 4 - (CROW - 10) * v / max;
      const line = (vals, colour) => {
        g.strokeStyle = colour; g.lineWidth = 1.5; g.beginPath();
        vals.forEach((v, k) => { if (k) g.lineTo(X(c.t[k]), Y(vals[k - 1])); g[k ? 'lineTo' : 'moveTo'](X(c.t[k]), Y(v)); });
        g.stroke(); g.lineWidth = 1;
      };
      line(c.rss, '#2a9d8f');
      if (c.heap) line(c.heap, '#8e44ad');
      g.fillStyle = '#333'; g.fillText(`${c.group}`.slice(0, 30), 4, y + 10);
      g.fillStyle = '#2a9d8f'; g.fillText('RSS', 4, y + 24);
      if (c.heap) { g.fillStyle = '#8e44ad'; g.fillText('live heap', 34, y + 24); }
      g.fillStyle = '#666'; g.fillText(`max ${fmtB(max)}`, 4, y + 38);
      const mark = { group: c.group, max };
      if (c.peak) {
        const px = X(c.peak[0]), py = Y(c.peak[1]);
        g.fillStyle = '#c0392b'; g.beginPath(); g.arc(px, py, 3.5, 0, 2 * Math.PI); g.fill();
        const label = `peak ${fmtB(c.peak[1])}`;
        g.fillText(label, Math.min(px + 6, width - g.measureText(label).width - 4), Math.max(y + 8, py - 6));
        Object.assign(mark, { peakX: px, peakY: py, peak: c.peak[1] });
      }
      hooks.curves.push(mark);
    });
    /* the stretches a process recorded nothing (--delay, --toggle-signal...):
     * hatched grey over its tracks, the reason written in */
    const gapRows = (grp) => tracks.map((t, k) => (t.group === grp ? k : -1)).filter((k) => k >= 0);
    hooks.tracksShown = tracks.length;
    for (const [gu, du, grp, why] of TL.gaps || []) {
      const rows = gapRows(grp);
      if (!rows.length) continue;
      const x0 = X(gu), w = Math.max(1, plot * du / span);
      const y0 = rows[0] * TROW, h = (rows[rows.length - 1] + 1) * TROW - y0;
      g.fillStyle = 'rgba(120,120,120,0.18)';
      g.fillRect(x0, y0, w, h);
      g.strokeStyle = 'rgba(120,120,120,0.45)';
      g.beginPath();
      for (let x = x0 - h; x < x0 + w; x += 8) { g.moveTo(Math.max(x0, x), y0 + Math.max(0, x0 - x)); g.lineTo(Math.min(x0 + w, x + h), y0 + Math.min(h, x0 + w - x)); }
      g.stroke();
      if (w > 60) { g.fillStyle = '#555'; g.fillText(`off: ${why}`.slice(0, Math.floor(w / 6)), x0 + 3, y0 + TROW / 2); }
    }
    /* the critical path (record -s): a green bar over each stretch of it on
     * its thread (pale while it waited for a cause not recorded), a line
     * where it passes from one thread to another; under a stretch whose
     * thread was off the CPU for part of it (<off CPU>: the kernel's
     * schedstat says how long, not when), a grey bar of that share, drawn
     * from the stretch's end and dashed, as it is not placed */
    const cp = [];
    /* (a diff's page has none: its tracks are two runs') */
    if (D.critical) tracks.forEach((t, k) => { for (const s of t.cp || []) cp.push([s[0], s[1], s[2], k, s[3] || 0]); });
    cp.sort((a, b) => a[0] - b[0]);
    hooks.critical = { segments: cp.length, us: cp.reduce((a, s) => a + s[1], 0), crossings: 0,
                       off_us: cp.reduce((a, s) => a + s[4], 0), off_segments: cp.filter((s) => s[4] > 0).length };
    cp.forEach((s, i) => {
      const y = s[3] * TROW;
      g.fillStyle = s[2] ? 'rgba(26,152,80,0.4)' : 'rgb(26,152,80)';
      g.fillRect(X(s[0]), y, Math.max(1, plot * s[1] / span), 3);
      if (s[4] > 0) {
        const w = Math.max(1, plot * Math.min(s[4], s[1]) / span), x1 = X(s[0] + s[1]);
        g.fillStyle = 'rgb(150,150,150)';
        for (let x = x1 - w; x < x1; x += 4) g.fillRect(x, y + 3, Math.min(2, x1 - x), 2);
      }
      const p = cp[i - 1];
      if (p && p[3] !== s[3]) {
        hooks.critical.crossings++;
        g.strokeStyle = 'rgb(26,152,80)';
        g.beginPath(); g.moveTo(X(s[0]), Math.min(p[3], s[3]) * TROW + 1); g.lineTo(X(s[0]), Math.max(p[3], s[3]) * TROW + 1); g.stroke();
      }
    });
    const band = drag ? [drag[0], drag[1]] : state.range ? [state.range[2], state.range[3]] : null;
    if (band) {
      g.fillStyle = 'rgba(42,111,219,0.15)';
      g.fillRect(X(Math.min(band[0], band[1])), 0, Math.abs(X(band[1]) - X(band[0])), height - 18);
    }
    g.strokeStyle = '#2a6fdb';
    for (const [tu, label] of TL.marks) {
      g.beginPath(); g.moveTo(X(tu), 0); g.lineTo(X(tu), height - 18); g.stroke();
      g.fillStyle = '#2a6fdb'; g.fillText(label, X(tu) + 2, height - 10);
    }
    g.fillStyle = '#666';
    for (let i = 0; i <= 10; i++) g.fillText((span * i / 10 / 1e6).toFixed(2) + ' s', X(span * i / 10) - (i === 10 ? 36 : 0), height - 4);
    canvas.onmousemove = (ev) => {
      const r = canvas.getBoundingClientRect();
      const x = ev.clientX - r.left, y = ev.clientY - r.top;
      const k = Math.floor(y / TROW);
      if (x >= LABEL && y >= curvesY && y < curvesY + curves.length * CROW) {
        const c = curves[Math.floor((y - curvesY) / CROW)];
        const us = (x - LABEL) / plot * span;
        let j = 0;
        while (j + 1 < c.t.length && c.t[j + 1] <= us) j++;
        return tip(`${c.group} at ${(c.t[j] / 1e6).toFixed(3)} s\nRSS ${fmtB(c.rss[j])}` + (c.heap ? `, live heap ${fmtB(c.heap[j])}` : '') +
          `\npage faults ${c.minflt[j]} minor, ${c.majflt[j]} major; context switches ${c.vcsw[j]} voluntary, ${c.ivcsw[j]} involuntary` +
          (c.peak ? `\nheap peak ${fmtB(c.peak[1])} at ${(c.peak[0] / 1e6).toFixed(3)} s` : ''), ev);
      }
      if (k < 0 || k >= tracks.length) return tip(null);
      const t = tracks[k];
      const cmd = PROCS[t.proc] && PROCS[t.proc].argv ? `\ncommand: ${PROCS[t.proc].argv}` : '';
      if (x < LABEL) return tip(`${t.group} ${t.name}${cmd}\n${kept ? 'click: all threads' : 'click: this thread only, and its stack chart'}`, ev);
      const us = (x - LABEL) / plot * span;
      const b = Math.floor(us / binUs);
      let s = `${t.group} ${t.name}${cmd}\n${(us / 1e6).toFixed(3)} s: CPU ${t.cpu ? (100 * (t.cpu[b] || 0) / binUs).toFixed(0) : 0}% of the interval`;
      for (const iv of t.iv || []) if (us >= iv[0] && us <= iv[0] + Math.max(iv[1], span / plot)) { s += `\n${TL.labels[iv[2]]}: ${fmtUs(iv[1])}`; break; }
      for (const [gu, du, grp, why] of TL.gaps || []) if (grp === t.group && us >= gu && us <= gu + du) { s += `\nrecording off ${fmtUs(du)}: ${why}`; break; }
      tip(s, ev);
    };
    canvas.onmouseleave = () => tip(null);
    /* drag across the plot: the flame graph, bottom-up tree and functions of
     * that range */
    const usAt = (ev) => Math.max(0, Math.min(span, (ev.clientX - canvas.getBoundingClientRect().left - LABEL) / plot * span));
    canvas.onclick = (ev) => {
      const r = canvas.getBoundingClientRect();
      const k = Math.floor((ev.clientY - r.top) / TROW);
      if (ev.clientX - r.left >= LABEL || k < 0 || k >= tracks.length) return;
      keepThread(kept ? -1 : TL.tracks.indexOf(tracks[k]));
    };
    canvas.onmousedown = (ev) => {
      if (!S || ev.clientX - canvas.getBoundingClientRect().left < LABEL) return;
      drag = [usAt(ev), usAt(ev)];
      ev.preventDefault();
    };
    window.onmousemove = (ev) => { if (drag) { drag[1] = usAt(ev); drawTimeline(); } };
    window.onmouseup = (ev) => {
      if (!drag) return;
      const [a, b] = [drag[0], usAt(ev)];
      drag = null;
      if (Math.abs(b - a) * plot / span >= 3) setRange(a, b); else drawTimeline();
    };
    const gaps = TL.gaps || [];
    $('timeline-info').innerHTML = (kept ? `<span>only <b>${esc(kept.group + ' ' + kept.name)}</b></span> <button id="all-threads">all threads</button> ` : '') +
      esc(`${TL.tracks.length} tracks over ${(span / 1e6).toFixed(3)} s` +
      (gaps.length ? `; recording off (hatched) ${gaps.length === 1 ? 'once' : gaps.length + ' times'}: ${[...new Set(gaps.map((z) => z[3]))].join('; ')}` : '') +
      (TL.dropped ? `; ${TL.dropped} intervals not shown (the shortest)` : '')) +
      (S === null ? ' <span class=note>(no range selection: too many distinct stacks for the page)</span>' : !S ? ''
        : state.range ? ` <span>range <b>${fmtUs(Math.round(state.range[2]))} – ${fmtUs(Math.round(state.range[3]))}</b>: the other views show it</span> <button id="unrange-tl">whole run</button>`
          : ' <span class=note>drag across the tracks to see a range in the other views</span>');
    const ur = $('unrange-tl');
    if (ur) ur.onclick = () => setRange(null);
    const at = $('all-threads');
    if (at) at.onclick = () => keepThread(-1);
    drawLegend(curves);
    drawStackChart(kept ? state.thread : busiest());
  }
  function keepThread(k) {
    state.thread = k;
    drawTimeline();
    saveHash(true);
  }
  /* what the timeline's marks mean, for those it has */
  function drawLegend(curves) {
    const item = (css, text) => `<span><i style="${css}"></i>${esc(text)}</span>`;
    let h = item('background:rgba(216,80,32,.9)', 'CPU sampled (darker: busier)');
    if (TL.tracks.some((t) => t.iv && t.iv.length)) h += item('background:rgba(40,90,200,.75);height:5px', 'waits, I/O (hover: which)');
    if (D.critical && TL.tracks.some((t) => t.cp && t.cp.length)) {
      const C = D.critical;
      const top = (C.funcs || []).filter((f) => f[0] !== '<Total>' && f[0] !== '<not sampled>' && f[0] !== '<off CPU>').slice(0, 3)
        .map((f) => `${f[0]} ${fmtUs(f[1])}`).join(', ');
      h += item('background:rgb(26,152,80);height:3px', `critical path ${fmtUs(C.path_us || 0)} of the main thread's ${fmtUs(C.wall_us || 0)}${top ? ': ' + top : ''}`);
      if (TL.tracks.some((t) => (t.cp || []).some((s) => s[3] > 0)))
        h += item('background:repeating-linear-gradient(90deg,#969696 0 2px,transparent 2px 4px);height:2px',
                  `<off CPU> ${fmtUs(((C.funcs || []).find((f) => f[0] === '<off CPU>') || [0, 0])[1])}: the part of a stretch its thread was off the CPU (how long, not when)`);
    }
    if ((TL.gaps || []).length) h += item('background:repeating-linear-gradient(45deg,#bbb 0 2px,#eee 2px 5px)', 'recording off');
    if (TL.marks.length) h += item('background:#2a6fdb;width:2px', 'marker (tally_marker)');
    if (curves.length) h += item('background:#2a9d8f;height:2px', 'resident memory');
    if (curves.some((c) => c.heap)) h += item('background:#8e44ad;height:2px', 'live heap (red dot: its peak)');
    h += `<span>click a thread's name: it alone and its stack chart${S ? '; drag across the tracks: a range in every view' : ''}</span>`;
    $('timeline-legend').innerHTML = h;
  }
  /* the track of the most CPU (the stack chart shown while none is kept) */
  function busiest() {
    let best = -1, most = -1;
    TL.tracks.forEach((t, k) => {
      const c = t.st ? (t.cpu || []).reduce((a, b) => a + b, 0) : -1;
      if (c > most) { most = c; best = k; }
    });
    return most >= 0 ? best : -1;
  }

  /* ---- the stack chart: a thread's stacks over time -----------------------
   * t.st: the tree node most sampled in each of t.stn bins of the
   * thread's sampled span [t.st0, t.st1) µs (run-length encoded, 0: none);
   * each bin draws its node and the node's ancestors, a
   * frame spanning the bins that share it: a flame chart in time order (as
   * speedscope's and the Firefox Profiler's), at the bin's resolution. */
  const SROW = 15;
  let sc = { rects: [] };
  function drawStackChart(k) {
    const canvas = $('stackchart');
    const t = k >= 0 ? TL.tracks[k] : null;
    hooks.stackChart = null;
    if (!t || !t.st) { canvas.style.display = 'none'; $('stack-info').textContent = ''; return; }
    canvas.style.display = '';
    const nb = t.stn || TL.st_bins;
    const node = new Int32Array(nb);
    for (let i = 0, b = 0; i + 1 < t.st.length; i += 2) for (let r = 0; r < t.st[i + 1] && b < nb; r++) node[b++] = t.st[i];
    /* each bin's path from the root's child down to its node */
    const paths = [];
    let maxDepth = 0;
    for (let b = 0; b < nb; b++) {
      const p = [];
      for (let j = node[b]; j > 0; j = FULL.parent[j]) p.push(j);
      p.reverse();
      paths.push(p);
      if (p.length > maxDepth) maxDepth = p.length;
    }
    const width = canvas.parentElement.clientWidth || 1000;
    const LABEL = 180, plot = width - LABEL - 8;
    const height = Math.max(1, maxDepth) * SROW + 4;
    const g = sizedCanvas(canvas, width, height, '10px');
    g.fillStyle = '#333';
    g.fillText(t.name.slice(0, 30), 4, SROW / 2);
    /* drawn from the thread's first sampled bin to its last (a short
     * process in a long run fills the width) */
    let lo = 0, hi = nb;
    while (lo < nb && !node[lo]) lo++;
    while (hi > lo + 1 && !node[hi - 1]) hi--;
    const bw = plot / (hi - lo);
    sc = { rects: [], track: k };
    const names = new Set();
    for (let d = 0; d < maxDepth; d++) {
      for (let b = 0; b < nb;) {
        const n = paths[b][d];
        if (n === undefined) { b++; continue; }
        let e = b + 1;
        while (e < nb && paths[e][d] === n) e++;
        const x = LABEL + (b - lo) * bw, w = (e - b) * bw, y = d * SROW;
        const fn = FULL.f[n], name = D.funcs[fn][0];
        const hit = state.search && state.search.test(name);
        g.fillStyle = hit ? '#e040e0' : colour(fn);
        g.fillRect(x, y, Math.max(w - 0.5, 0.5), SROW - 1);
        if (w > 30) {
          g.fillStyle = '#000';
          g.fillText(name.length * 5.5 > w - 6 ? name.slice(0, Math.max(0, Math.floor((w - 6) / 5.5) - 1)) + '…' : name, x + 3, y + SROW / 2);
        }
        sc.rects.push([x, y, w, n, b, e]);
        names.add(name);
        b = e;
      }
    }
    const binUs = Math.max(1, t.st1 - t.st0) / nb;
    const at = (b) => fmtUs(Math.round(t.st0 + b * binUs));
    $('stack-info').innerHTML = `<span><b>stack chart</b> of ${esc(t.group + ' ' + t.name)}, ${at(lo)} – ${at(hi)}: ` +
      `each ${fmtUs(Math.round(binUs))} its most sampled stack, in time order</span>` +
      (state.thread < 0 ? '<span class=note>(the busiest thread; click a thread\'s name to choose)</span>' : '');
    hooks.stackChart = { track: k, frames: sc.rects.length, depth: maxDepth, names: [...names] };
    canvas.onmousemove = (ev) => {
      const q = stackAt(ev);
      if (!q) return tip(null);
      tip(`${D.funcs[FULL.f[q[3]]][0]}\n${at(q[4])} – ${at(q[5])}` +
        (state.merge ? '' : '\nclick: the flame graph zoomed on it'), ev);
    };
    canvas.onmouseleave = () => tip(null);
    /* a click: the flame graph zoomed on that frame (the chart's nodes are
     * the whole run's tree, a range's has the same; merged, it has not) */
    canvas.onclick = (ev) => {
      const q = stackAt(ev);
      if (!q || state.merge) return;
      state.zoom = q[3];
      select(FULL.f[q[3]], false);
      show('flame');
    };
  }
  function stackAt(ev) {
    const r = $('stackchart').getBoundingClientRect();
    const x = ev.clientX - r.left, y = ev.clientY - r.top;
    for (const q of sc.rects) if (x >= q[0] && x < q[0] + q[2] && y >= q[1] && y < q[1] + SROW) return q;
    return null;
  }
  /* test hook: the client rectangle of the widest stack-chart frame named `name` */
  hooks.stackRect = (name) => {
    const r = $('stackchart').getBoundingClientRect();
    let best = null;
    for (const q of sc.rects) if (D.funcs[FULL.f[q[3]]][0] === name && (!best || q[2] > best[2])) best = q;
    return best ? { x: r.left + best[0], y: r.top + best[1], w: best[2], h: SROW } : null;
  };

  /* ---- source ---------------------------------------------------------- */
  /* a column's title from its key (excl_cpu: "Excl. CPU s", incl_sync_wait:
   * "Incl. sync wait"), and a value as the text tables print it */
  const srcTitle = (k) => (k.startsWith('excl_') ? 'Excl. ' : 'Incl. ') +
    (k.slice(5) === 'cpu' ? 'CPU s' : k.slice(5).replace(/_/g, ' '));
  const srcValue = (v) => (typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : v);
  function drawSource() {
    const el = $('source-body');
    if (!D.source.length) { el.innerHTML = '<p class=note>No source lines: the hot functions have no line information (build with -g), or their sources are not where DWARF says.</p>'; return; }
    let h = '';
    for (const s of D.source) {
      const rows = (s.doc && s.doc.source) || [];
      const keys = Object.keys(rows[0] || {}).filter((k) => /^(excl|incl)_/.test(k) && !/_pct$/.test(k));
      const hot = rows.map((r) => keys.some((k) => r[k] > 0));
      const near = rows.map((_, i) => hot.slice(Math.max(0, i - 3), i + 4).some(Boolean));
      h += `<h3>${esc(s.name)}</h3><table class=src><tr>${keys.map((k) => `<th>${esc(srcTitle(k))}</th>`).join('')}<th>Line</th><th class=name>Source</th></tr>`;
      let gap = false;
      rows.forEach((r, i) => {
        if (!near[i]) { if (!gap) h += `<tr><td colspan=${keys.length + 2} class=note>…</td></tr>`; gap = true; return; }
        gap = false;
        h += `<tr class="${hot[i] ? 'hot' : ''}">${keys.map((k) => `<td>${r[k] ? srcValue(r[k]) : ''}</td>`).join('')}<td>${r.line}</td><td class=code>${esc(r.text)}</td></tr>`;
      });
      h += '</table>';
    }
    el.innerHTML = h;
  }

  /* ---- data objects (record --data) ------------------------------------- */
  /* the tables of `tally report --data-objects` and `--data-layout`, from
   * their JSON (D.dataObjects, D.dataLayout); member rows indented */
  const dataCell = (k, v) => (typeof v !== 'number' ? v : /pct$|^from_/.test(k) ? v.toFixed(2) : Number.isInteger(v) ? v : v.toFixed(3));
  function dataTable(id, rows, cols) {
    let h = `<table id="${id}"><thead><tr>${cols.map(([k, t]) => `<th class="${k === 'name' ? 'name' : ''}">${esc(t)}</th>`).join('')}</tr></thead><tbody>`;
    for (const r of rows) {
      h += `<tr class="${r.depth ? 'member' : ''}">` + cols.map(([k]) => k === 'name'
        ? `<td class=name>${r.depth ? '\u2003' : ''}${esc(r.name)}</td>`
        : `<td>${r[k] === '' || r[k] === undefined ? '' : esc(dataCell(k, r[k]))}</td>`).join('') + '</tr>';
    }
    return h + '</tbody></table>';
  }
  function drawData() {
    const rows = (D.dataObjects && D.dataObjects.data_objects_cpu) || [];
    const layout = (D.dataLayout && D.dataLayout.data_layout) || [];
    const precise = (D.dataPrecise && D.dataPrecise.data_objects) || [];
    if (!rows.length && !precise.length) { $('data-body').innerHTML = '<p class=note>No data objects: record with --data.</p>'; return; }
    let h = !rows.length ? '' : '<h3>Data objects by CPU time</h3>' + dataTable('dtable', rows, [['cpu', 'CPU s'], ['pct', '%'],
      ['samples', 'Samples'], ['size', 'Size'], ['name', 'Data object'], ['object', 'Object'],
      ['top_function', 'Accessed most by'], ['top_pct', '% of its time']]);
    if (precise.length) {   /* precise samples, with the share each level served (from_l1 ...) */
      const lv = Object.keys(precise[0]).filter((k) => k.startsWith('from_'));
      h += '<h3>Data objects by precise samples, and the level that served them</h3>' + dataTable('ptable', precise,
        [['counter', 'Counter'], ['events', 'Events'], ['pct', '%'], ['samples', 'Samples'], ['size', 'Size'],
          ['name', 'Data object'], ['object', 'Object'], ['top_function', 'Accessed most by'], ['top_pct', '% of its events'],
          ...lv.map((k) => [k, '% ' + k.slice(5).toUpperCase()])]);
    }
    if (layout.length) {
      const lc = Object.keys(layout[0]).filter((k) => k !== 'depth' && k !== 'name');
      h += '<h3>Data layout: structures by member offset</h3>' + dataTable('ltable', layout,
        [['name', 'Structure / member'], ...lc.map((k) => [k, k.replace(/_/g, ' ')])]);
    }
    if (D.dataNote) h += `<p class=note>${esc(D.dataNote)}</p>`;
    $('data-body').innerHTML = h;
  }

  /* ---- overview ------------------------------------------------------- */
  function drawOverview() {
    /* as `tally report` prints it (overviewText); the JSON's keys only
     * for a page written before it */
    const o = (D.overview || {}).overview || {};
    let h = '';
    if (typeof D.overviewText === 'string') {
      h = `<pre class=overview>${esc(D.overviewText)}</pre>`;
    } else {
      h = '<div class=kv>';
      for (const [k, v] of Object.entries(o)) h += `<div>${esc(k)}</div><div>${esc(Array.isArray(v) ? v.join('\n') : v)}</div>`;
      h += '</div>';
    }
    if (D.pruned) h += `<p class=note>${D.pruned} call-tree nodes below ${D.prunedPct}% of every metric were folded into their parents to keep the page small.</p>`;
    $('overview-body').innerHTML = h;
  }


  /* ---- blame ---------------------------------------------------------------
   * The waits on contended mutexes (record -s) as the waiters' flame graph:
   * each waiting stack, root at the top, as wide as its wait; a waiting
   * stack's leaf (red) opens below it the stacks of the threads that held
   * the mutex meanwhile, each with where it took it, its part of the wait
   * and how many waits. */
  const BL = D.blame || [];
  let blameOpen = null;        /* the waiting stack (its key) whose holders are shown */
  function drawBlame() {
    const el = $('blame-flame');
    if (!BL.length) {
      $('blame-info').textContent = '';
      el.innerHTML = '<p class=note>No lock-holder blame: record with -s (the holders of contended mutexes are recorded unless --sync-holders=off).</p>';
      $('blame-holders').innerHTML = '';
      return;
    }
    /* the waiters' tree: node = {name, us, kids: Map, key (a waiting stack's leaf)} */
    const root = { name: 'all waits', us: 0, kids: new Map(), key: null };
    const byKey = new Map();
    for (const b of BL) {
      root.us += b.us;
      let n = root;
      b.w.forEach((f, i) => {
        if (!n.kids.has(f)) n.kids.set(f, { name: f, us: 0, kids: new Map(), key: null });
        n = n.kids.get(f);
        n.us += b.us;
        if (i === b.w.length - 1) n.key = b.w.join(';');
      });
      const k = b.w.join(';');
      if (!byKey.has(k)) byKey.set(k, []);
      byKey.get(k).push(b);
    }
    const width = el.clientWidth || 1000;
    const ROW = 18;
    let h = '', depth = 0, leaves = 0;
    const put = (n, x, w, d) => {
      depth = Math.max(depth, d);
      const leaf = n.key && byKey.has(n.key);
      if (leaf) leaves++;
      h += `<div class="${leaf ? 'leaf' + (blameOpen === n.key ? ' open' : '') : ''}" data-name="${esc(n.name)}"${leaf ? ` data-key="${esc(n.key)}"` : ''}` +
        ` style="left:${x.toFixed(1)}px;top:${d * ROW}px;width:${Math.max(w - 1, 1).toFixed(1)}px" title="${esc(n.name)}: waited ${fmtUs(n.us)} (${pct(n.us, root.us)})${leaf ? '\nclick: who held the mutex' : ''}">${w > 30 ? esc(n.name) : ''}</div>`;
      let cx = x;
      for (const k of [...n.kids.values()].sort((a, b) => b.us - a.us)) {
        const kw = w * k.us / (n.us || 1);
        put(k, cx, kw, d + 1);
        cx += kw;
      }
    };
    put(root, 0, width, 0);
    el.innerHTML = h;
    el.style.height = `${(depth + 1) * ROW + 2}px`;
    hooks.blameLeaves = leaves;
    for (const d of el.querySelectorAll('div.leaf')) d.onclick = () => { blameOpen = blameOpen === d.dataset.key ? null : d.dataset.key; drawBlame(); };
    $('blame-info').innerHTML = `<span>waits on contended mutexes: <b>${fmtUs(root.us)}</b> in ${byKey.size} waiting stacks; a red leaf opens the holders' stacks</span>`;
    const hs = blameOpen && byKey.get(blameOpen);
    if (!hs) { $('blame-holders').innerHTML = ''; hooks.holdersShown = []; return; }
    const tot = hs.reduce((a, b) => a + b.us, 0);
    const w = blameOpen.split(';');
    let out = `<h3>${esc(w[w.length - 1])} waited ${fmtUs(tot)}: held by</h3>`;
    hooks.holdersShown = [];
    for (const b of [...hs].sort((x, y) => y.us - x.us)) {
      out += `<div class=holder><h4>${b.tid ? `thread ${b.tid}` : 'not known'}, ${esc(b.kind)} ${esc(b.addr)}: ${esc(b.where)} — ${fmtUs(b.us)} (${pct(b.us, tot)}), ${b.n} waits</h4>` +
        (b.h.length ? `<ol>${b.h.map((f) => `<li>${esc(f)}</li>`).join('')}</ol>` : '') + '</div>';
      hooks.holdersShown.push({ where: b.where, tid: b.tid, us: b.us, stack: b.h });
    }
    $('blame-holders').innerHTML = out;
  }

  /* ---- wiring ------------------------------------------------------------- */
  const views = { flame: drawFlame, inverted: drawFlame, functions: drawFunctions, timeline: drawTimeline, blame: drawBlame, source: drawSource, data: drawData, overview: drawOverview };
  function show(view, quiet) {
    state.view = view;
    for (const b of document.querySelectorAll('nav button')) b.classList.toggle('on', b.dataset.view === view);
    for (const s of document.querySelectorAll('main section')) s.classList.toggle('on', s.dataset.views.split(' ').includes(view));
    views[view]();
    if (!quiet) saveHash(true);
  }
  for (const b of document.querySelectorAll('nav button')) b.onclick = () => show(b.dataset.view);
  const sel = $('metric');
  M.forEach((mi, k) => { const o = document.createElement('option'); o.value = k; o.textContent = mi.title; sel.appendChild(o); });
  sel.onchange = () => { state.metric = +sel.value; views[state.view](); drawCallers(); saveHash(true); };
  /* The search: a regular expression, or, when it is not one, its text
   * matched literally, and the note beside the box says so. */
  function setSearch(q) {
    q = q.trim();
    let re = null, bad = '';
    if (q) {
      try { re = new RegExp(q, 'i'); } catch (e) {
        bad = `not a regular expression (${e.message.replace(/^Invalid regular expression: /, '')}): matching the text as typed`;
        re = new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
      }
    }
    state.search = re;
    state.query = q;
    const note = $('search-note');
    note.textContent = bad;
    note.style.display = bad ? '' : 'none';
    $('search').classList.toggle('invalid', !!bad);
    hooks.searchError = bad;
  }
  let searchTimer = 0;
  $('search').addEventListener('input', (ev) => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      setSearch(ev.target.value);
      views[state.view]();
      saveHash(false);
    }, 120);
  });

  /* ---- the page's state in its address (#v=flame&z=12&q=...) -------------------
   * view, metric, search, zoom, range, merged processes, kept thread: a
   * reload or a shared link shows the same, and Back undoes a zoom or a tab
   * instead of leaving the page.  A change a user makes is a new history
   * entry; typing a search replaces the current one. */
  let lastHash = null;
  function saveHash(push) {
    const p = new URLSearchParams();
    if (state.view !== 'flame') p.set('v', state.view);
    if (state.metric) p.set('m', M[state.metric].name);
    if (state.query) p.set('q', state.query);
    if (state.zoom) p.set('z', state.zoom);
    if (state.izoom) p.set('iz', state.izoom);
    if (state.range) p.set('r', `${Math.round(state.range[2])}-${Math.round(state.range[3])}`);
    if (state.merge) p.set('mp', '1');
    if (state.thread >= 0) p.set('th', state.thread);
    const h = p.toString();
    if (h === lastHash) return;
    lastHash = h;
    if (push) location.hash = h; else location.replace('#' + h);
    hooks.hash = h;
  }
  function applyHash() {
    const h = location.hash.replace(/^#/, '');
    if (h === lastHash) return;
    lastHash = h;
    hooks.hash = h;
    const p = new URLSearchParams(h);
    const mi = M.findIndex((x) => x.name === p.get('m'));
    state.metric = mi > 0 ? mi : 0;
    sel.value = state.metric;
    state.merge = MERGEABLE && p.get('mp') === '1';
    const r = /^(\d+)-(\d+)$/.exec(p.get('r') || '');
    setRange(r && S ? +r[1] : null, r ? +r[2] : null, true);
    const q = p.get('q') || '';
    $('search').value = q;
    setSearch(q);
    const z = +p.get('z') || 0, iz = +p.get('iz') || 0;
    state.zoom = z > 0 && z < T.n ? z : 0;
    state.izoom = iz > 0 && iz < inverted().n ? iz : 0;
    hooks.zoomName = state.zoom ? D.funcs[T.f[state.zoom]][0] : '';
    const th = p.has('th') ? +p.get('th') : -1;
    state.thread = th >= 0 && th < TL.tracks.length ? th : -1;
    const v = p.get('v') || 'flame';
    show(views[v] && (v !== 'timeline' || TL.tracks.length) ? v : 'flame', true);
    drawCallers();
  }
  window.addEventListener('hashchange', applyHash);
  function resetZoom() {
    if (state.view === 'inverted') state.izoom = 0; else state.zoom = 0;
    drawFlame();
    saveHash(true);
  }
  /* keys: "/" to the search box, Esc out of it, or, elsewhere, back to
   * the whole graph */
  document.addEventListener('keydown', (ev) => {
    const inBox = ev.target && (ev.target.tagName === 'INPUT' || ev.target.tagName === 'SELECT');
    if (ev.key === '/' && !inBox && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
      ev.preventDefault();
      $('search').focus();
      $('search').select();
    } else if (ev.key === 'Escape') {
      if (inBox) { ev.target.blur(); return; }
      if ((state.view === 'flame' || state.view === 'inverted') && (state.view === 'inverted' ? state.izoom : state.zoom)) resetZoom();
    }
  });
  window.addEventListener('resize', () => { if (state.view === 'flame' || state.view === 'inverted' || state.view === 'timeline') views[state.view](); });
  /* the page's experiment and, for one run, its founder's command line */
  const cmd = !DIFF && PROCS.length && PROCS[0].argv ? PROCS[0].argv : '';
  $('title').textContent = D.title + (cmd ? ': ' + cmd : '');
  $('title').title = cmd;
  document.title = 'tally: ' + D.title;
  if (!TL.tracks.length) $('nav-timeline').style.display = 'none';
  if (!BL.length) $('nav-blame').style.display = 'none';
  if (!D.dataObjects && !D.dataPrecise) $('nav-data').style.display = 'none';
  hooks.setRange = setRange;
  hooks.rangeTotal = FULL.b[0][0];
  hooks.mergeable = MERGEABLE;
  T = shaped(FULL);
  if (location.hash.length > 1) applyHash(); else { lastHash = ''; show('flame', true); }
  hooks.readyMs = performance.now();
  hooks.ready = true;
  document.body.dataset.ready = '1';
})();
