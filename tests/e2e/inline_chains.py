#!/usr/bin/env python3
"""inline_chains.py — the inlined chains at the sampled pcs, tally's against
perf's (`perf script --inline`), for test_inline.sh.

usage: inline_chains.py COLLAPSED [PERF_SCRIPT]
COLLAPSED is tally's collapsed export; PERF_SCRIPT the output of
`perf script --inline -F ip,sym` on a `perf record --call-graph dwarf` of
the same program (samples of its own binary: --dsos).  A leaf chain is the
function holding the sampled pc and the calls inlined there, outermost
first: in tally the last frame without the `(inlined)` mark and the marked
ones after it; in perf the lines of a sample that share its first address,
read bottom up (where perf prints the symbol's name first, for the
innermost inlined function, that one matches any).  Names compare by their last component, without templates,
arguments or return type (`void std::__introsort_loop<...>(...)` is
`__introsort_loop`); a run of one name is one (perf repeats some).

Without PERF_SCRIPT: checks the chain ending in Key::operator< against the
source (main -> std::sort -> ... -> std::__introsort_loop -> ... -> the
lambda's operator() -> Key::operator<).  With it: perf's three most
sampled leaf chains are each one of tally's, holding at least 2% of its
samples, and perf's first is among tally's first two.  Shares are printed,
not compared: the two sample at different instructions (perf's hrtimer and
tally's timer signal skid differently past a slow load: on the test's
program one chain had 0.15 of perf's samples and 0.29 of tally's, while
the pcs of the first chain agreed).  Exit 1 if a check fails.
"""
import re
import sys

OPS = re.compile(r'operator(\(\)|[<>=!+\-*/%&|^~\[\]]+)')


def norm(name):
    n = name.replace(' (inlined)', '')
    n = OPS.sub(lambda m: 'operator_' + ''.join('%02x' % ord(c) for c in m.group(1)), n)
    for pat in (r'<[^<>]*>', r'\([^()]*\)', r'\{[^{}]*\}'):
        while re.search(pat, n):
            n = re.sub(pat, '', n)
    n = re.sub(r'(\s+(const|volatile|&|&&))+\s*$', '', n).strip()
    n = n.split(' ')[-1]
    return n.split('::')[-1]


def squeeze(chain):
    out = []
    for x in chain:
        if not out or out[-1] != x:
            out.append(x)
    return tuple(out)


def tally_chains(path):
    chains = {}
    for line in open(path):
        frames, w = line.rstrip('\n').rsplit(' ', 1)
        fr = frames.split(';')
        if 'main' not in fr:
            continue
        k = len(fr) - 1
        while k > 0 and fr[k].endswith(' (inlined)'):
            k -= 1
        c = squeeze([norm(x) for x in fr[k:]])
        chains[c] = chains.get(c, 0) + float(w)
    return chains


def perf_chains(path):
    chains = {}
    for block in open(path).read().split('\n\n'):
        lines = [l.split(None, 1) for l in block.strip().split('\n') if l.strip()]
        lines = [l for l in lines if len(l) == 2]
        if not lines:
            continue
        first = lines[0][0]
        group = []
        for addr, sym in lines:
            if addr != first:
                break
            group.append(sym)
        # perf 6.1 names the innermost inlined function of some pcs by
        # the symbol: a plain line before marked ones stands for it.
        wild = len(group) > 1 and not group[0].endswith('(inlined)')
        c = squeeze([norm(s) for s in reversed(group[1:] if wild else group)]) + (('*',) if wild else ())
        chains[c] = chains.get(c, 0) + 1
    return chains


def main():
    bad = 0
    tally = tally_chains(sys.argv[1])
    ttotal = sum(tally.values())
    if len(sys.argv) < 3:
        # against the source: every stack ending in Key::operator<
        stacks = [l.rstrip('\n').rsplit(' ', 1)[0].split(';') for l in open(sys.argv[1])]
        lt = [fr for fr in stacks if fr[-1].startswith('Key::operator<') and fr[-1].endswith(' (inlined)')]
        print('stacks ending in Key::operator< (inlined):', len(lt))
        if not lt:
            return 1
        for fr in lt:
            n = [norm(x) for x in fr]
            m = n.index('main') if 'main' in n else len(n)
            ok = (n[-2] == 'operator_2829' and fr[-2].endswith(' (inlined)') and
                  n[m + 1:m + 3] == ['sort', '__sort'] and fr[m + 1].startswith('std::sort<') and
                  fr[m + 1].endswith(' (inlined)') and
                  ('__introsort_loop' in n[m + 3:-2] or '__final_insertion_sort' in n[m + 3:-2]))
            if not ok:
                print('FAIL', ';'.join(n))
                bad += 1
        return 1 if bad else 0
    perf = perf_chains(sys.argv[2])
    ptotal = sum(perf.values())
    print('perf samples %d, tally weight %.3g, tally chains %d' % (ptotal, ttotal, len(tally)))
    top = sorted(perf.items(), key=lambda kv: -kv[1])[:3]
    ttop = [c for c, _ in sorted(tally.items(), key=lambda kv: -kv[1])[:2]]
    for i, (c, n) in enumerate(top):
        if c[-1] == '*':       # the best of tally's chains that fit
            fits = [k for k in tally if len(k) == len(c) and k[:-1] == c[:-1]]
            c = max(fits, key=lambda k: tally[k]) if fits else c
        ps, ts = n / ptotal, tally.get(c, 0) / ttotal
        ok = ts >= 0.02 and (i > 0 or c in ttop)
        print('%s perf %.3f tally %.3f  %s' % ('ok  ' if ok else 'FAIL', ps, ts, ' > '.join(c)))
        bad += not ok
    if bad:
        for c, w in sorted(tally.items(), key=lambda kv: -kv[1])[:6]:
            print('  tally %.3f %s' % (w / ttotal, ' > '.join(c)))
    return 1 if bad else 0


sys.exit(main())
