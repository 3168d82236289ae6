#!/usr/bin/env python3
"""omp_shares.py — checks of the OpenMP user view against what ompy measured.

usage: omp_shares.py OUTPUT COLLAPSED
OUTPUT is ompy's line (`prepare P compute C imbalance I lone W tail T
tail_master M total Z`, seconds of process CPU time); COLLAPSED the profile
(weights in ns).  Each phase's share of the program's CPU time Z must be the
inclusive time of its function in the profile over Z (±0.03): compute's
parallel work on every thread, the barrier wait imputed to imbalance, and
the workers' spinning during tail as <OMP-idle>.  Every stack holding an
OpenMP body holds the function of its parallel region.  Exit 1 if any
fails.
"""
import re
import sys

out = open(sys.argv[1]).read().split()
v = {out[i]: float(out[i + 1]) for i in range(0, len(out) - 1, 2)}
stacks = []
for line in open(sys.argv[2]):
    frames, w = line.rstrip('\n').rsplit(' ', 1)
    stacks.append((frames.split(';'), float(w)))


def incl(f):
    return sum(w for fr, w in stacks if f in fr) / 1e9 / v['total']


want = {
    'compute': v['compute'] / v['total'],
    'prepare': v['prepare'] / v['total'],
    'imbalance': v['imbalance'] / v['total'],
    '<OMP-idle>': (v['tail'] - v['tail_master']) / v['total'],
}
bad = 0
for f, share in want.items():
    got = incl(f)
    ok = abs(got - share) <= 0.03
    bad += not ok
    print('%s incl %s: profile %.4f, measured %.4f' % ('ok' if ok else 'FAIL', f, got, share))
for fr, w in stacks:
    if any(re.match(r'(compute|imbalance) \[clone \._omp_fn|\.omp_outlined', x) for x in fr) and \
            'compute' not in fr and 'imbalance' not in fr:
        print("FAIL a body outside its region's function: %s %d" % (';'.join(fr), w))
        bad += 1
sys.exit(1 if bad else 0)
