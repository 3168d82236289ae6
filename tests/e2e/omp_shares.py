#!/usr/bin/env python3
"""omp_shares.py — checks of the OpenMP user view against what ompy measured.

usage: omp_shares.py OUTPUT COLLAPSED CHROME HZ
OUTPUT is ompy's line (`prepare P compute C imbalance I lone W tail T
tail_master M gaps G edge E total Z`, seconds of process CPU time);
COLLAPSED the profile and CHROME the same window as trace events (`tally
export --format chrome`: each thread's samples over time); HZ the sampling
rate.
Each phase's share of the phases' CPU time (P + C + I + T + G) must be the
inclusive share of its function in the profile, of the time under main and
<OMP-idle>: compute's parallel work on every thread, the barrier wait
imputed to imbalance, and the workers' spinning during tail and between
regions (G) as <OMP-idle>.  (Shares, not seconds: the collector's own CPU
time is in the program's clock and in no sample.)  Every stack holding an
OpenMP body holds the function of its parallel region.  Exit 1 if any fails.

The tolerance is what this run leaves unknown, each part printed:
 - sampling: each thread's samples may misplace one period at each end of
   each of its phases (three a thread);
 - edge: the workers' CPU across the ompy_end marker's call (E), which may
   lie on either side of the profile's window;
 - nearest: a worker's sample in the runtime alone is placed by the
   opener's sample nearest in time (docs/structure.md): those taken between
   the opener's last sample on one side of a region's start or end and its
   first on the other may go either way.  On a loaded machine the opener is
   switched out for milliseconds at a time while the workers spin.
"""
import json
import re
import sys
from collections import defaultdict

from measured import read_measured, read_stacks

v = read_measured(sys.argv[1])
stacks = read_stacks(sys.argv[2])
hz = float(sys.argv[4])


def incl_w(f):
    return sum(w for fr, w in stacks if f in fr)


def samples_by_thread(path):
    """{tid: [(time, cpu_ns, leaf)]} from the chrome export's complete events
    (nested: the innermost event at a time is the sample's leaf), and the
    opener's tid (the process's own, the main thread)."""
    doc = json.load(open(path))
    inner = {}
    pid = None
    for e in doc['traceEvents']:
        if e.get('ph') != 'X':
            continue
        pid = e['pid']
        inner[(e['tid'], e['ts'])] = e          # file order: outermost first
    out = defaultdict(list)
    for (tid, ts), e in inner.items():
        out[tid].append((ts, e['dur'] * 1000.0, e['name']))
    for s in out.values():
        s.sort()
    return pid, out


def opener_in_region(leaf):
    return leaf.startswith('<OMP-') or '._omp_fn' in leaf or '.omp_outlined' in leaf


def nearest_unknown(path):
    """CPU (ns) of workers' runtime-only samples taken while the opener's
    side of a region boundary is unknown."""
    pid, threads = samples_by_thread(path)
    opener = threads.get(pid, [])
    unknown = 0.0
    for a, b in zip(opener, opener[1:]):
        if opener_in_region(a[2]) == opener_in_region(b[2]):
            continue
        for tid, s in threads.items():
            if tid != pid:
                unknown += sum(w for t, w, leaf in s
                               if a[0] < t < b[0] and leaf in ('<OMP-idle>', '<OMP-barrier>'))
    return unknown, len(threads)


whole = incl_w('main') + incl_w('<OMP-idle>')
phases = v['prepare'] + v['compute'] + v['imbalance'] + v['tail'] + v['gaps']
unknown_ns, nthreads = nearest_unknown(sys.argv[3])
tol_sampling = 3 * nthreads / hz / phases
tol_edge = v['edge'] / phases
tol_nearest = unknown_ns / whole
tol = tol_sampling + tol_edge + tol_nearest
print('tolerance %.4f: sampling %.4f (%d threads), edge %.4f, nearest %.4f'
      % (tol, tol_sampling, nthreads, tol_edge, tol_nearest))


def incl(f):
    return incl_w(f) / whole


want = {
    'compute': v['compute'] / phases,
    'prepare': v['prepare'] / phases,
    'imbalance': v['imbalance'] / phases,
    '<OMP-idle>': (v['tail'] - v['tail_master'] + v['gaps']) / phases,
}
bad = 0
for f, share in want.items():
    got = incl(f)
    ok = abs(got - share) <= tol
    bad += not ok
    print('%s incl %s: profile %.4f, measured %.4f' % ('ok' if ok else 'FAIL', f, got, share))
for fr, w in stacks:
    if any(re.match(r'(compute|imbalance) \[clone \._omp_fn|\.omp_outlined', x) for x in fr) and \
            'compute' not in fr and 'imbalance' not in fr:
        print("FAIL a body outside its region's function: %s %d" % (';'.join(fr), w))
        bad += 1
sys.exit(1 if bad else 0)
