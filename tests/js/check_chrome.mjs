// check_chrome.mjs FILE — tally's trace-event export is what viewers read:
// every event is checked against the Trace Event Format (phases, fields and
// their types, async begin/end pairs, complete events properly nested per
// thread), then Chrome DevTools' own trace engine (the Performance panel's,
// @paulirish/trace_engine) parses it; prints, as JSON, per thread the self
// time of every function in the call tree DevTools built (in µs), and the
// names of processes and threads it found.
import fs from 'node:fs';
import { deadline } from './browser.mjs';

deadline(60000, 'check_chrome');
// URL.parse is Node 20.18's; Debian 12's nodejs is 18 (the engine calls it once).
URL.parse ??= (url, base) => { try { return new URL(url, base); } catch { return null; } };
globalThis.DOMRect ??= class DOMRect { constructor(x = 0, y = 0, w = 0, h = 0) { Object.assign(this, { x, y, width: w, height: h }); } };
const Trace = await import('@paulirish/trace_engine');
const file = process.argv[2];
const json = JSON.parse(fs.readFileSync(file, 'utf8'));
const events = json.traceEvents;
const fail = (msg, e) => { console.error(msg, JSON.stringify(e)); process.exit(1); };
const num = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
if (!Array.isArray(events)) fail('no traceEvents array', json);
const open = new Map();
const stacks = new Map();
const names = { process: {}, thread: {} };
for (const e of events) {
  if (typeof e.ph !== 'string' || typeof e.name !== 'string' || !Number.isInteger(e.pid) || !Number.isInteger(e.tid))
    fail('event without ph, name, pid or tid', e);
  if (e.ph === 'M') {
    if (!['process_name', 'thread_name'].includes(e.name) || typeof e.args?.name !== 'string') fail('bad metadata', e);
    names[e.name.split('_')[0]][e.name === 'process_name' ? e.pid : `${e.pid}/${e.tid}`] = e.args.name;
    continue;
  }
  if (!num(e.ts)) fail('bad ts', e);
  if (e.ph === 'X') {
    if (!num(e.dur)) fail('bad dur', e);
    const k = `${e.pid}/${e.tid}`;
    const st = stacks.get(k) || [];
    while (st.length && st[st.length - 1].end <= e.ts) st.pop();
    if (st.length && e.ts + e.dur > st[st.length - 1].end) fail('complete event overlaps its parent', e);
    st.push({ end: e.ts + e.dur });
    stacks.set(k, st);
  } else if (e.ph === 'b' || e.ph === 'e') {
    if (e.id === undefined || typeof e.cat !== 'string') fail('async event without id or cat', e);
    const k = `${e.cat}/${e.id}`;
    if (e.ph === 'b') { if (open.has(k)) fail('async id begun twice', e); open.set(k, e.ts); }
    else { if (!open.has(k) || open.get(k) > e.ts) fail('async end without begin', e); open.delete(k); }
  } else if (e.ph === 's' || e.ph === 'f') {
    if (e.id === undefined || typeof e.cat !== 'string') fail('flow event without id or cat', e);
    const k = `flow/${e.cat}/${e.id}`;
    if (e.ph === 's') { if (open.has(k)) fail('flow id begun twice', e); open.set(k, e.ts); }
    else { if (!open.has(k) || open.get(k) > e.ts) fail('flow end without its start', e); open.delete(k); }
  } else if (e.ph === 'i') {
    if (!['g', 'p', 't'].includes(e.s)) fail('instant event scope', e);
  } else fail('unexpected phase', e);
}
if (open.size) fail('async events never ended', [...open.keys()].slice(0, 5));

const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const parsed = model.parsedTrace();
const data = parsed.data ?? parsed;
const threads = {};
for (const [pid, p] of data.Renderer.processes) {
  for (const [tid, t] of p.threads) {
    const self = {};
    const walk = (n) => { self[n.entry.name] = (self[n.entry.name] || 0) + n.selfTime; for (const c of n.children) walk(c); };
    for (const r of t.tree?.roots ?? []) walk(r);
    threads[`${pid}/${tid}`] = { name: t.name, self_us: self };
  }
}
console.log(JSON.stringify({ names, threads }));
