#!/usr/bin/env python3
"""omp_shares.py — checks of the OpenMP user view against what ompy measured.

usage: omp_shares.py OUTPUT COLLAPSED
OUTPUT is ompy's line (`prepare P compute C imbalance I lone W tail T
tail_master M gaps G total Z`, seconds of process CPU time); COLLAPSED the
profile.
Each phase's share of the phases' CPU time (P + C + I + T) must be the
inclusive share of its function in the profile, of the time under main and
<OMP-idle> (±0.03): compute's parallel work on every thread, the barrier
wait imputed to imbalance, and the workers' spinning during tail and between
regions (G) as <OMP-idle>.  (Shares, not seconds: the collector's own CPU time is in the
program's clock and in no sample.)  Every stack holding an OpenMP body holds
the function of its parallel region.  Exit 1 if any fails.
"""
import re
import sys

from measured import read_measured, read_stacks

v = read_measured(sys.argv[1])
stacks = read_stacks(sys.argv[2])


def incl_w(f):
    return sum(w for fr, w in stacks if f in fr)


whole = incl_w('main') + incl_w('<OMP-idle>')
phases = v['prepare'] + v['compute'] + v['imbalance'] + v['tail'] + v['gaps']


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
    ok = abs(got - share) <= 0.03
    bad += not ok
    print('%s incl %s: profile %.4f, measured %.4f' % ('ok' if ok else 'FAIL', f, got, share))
for fr, w in stacks:
    if any(re.match(r'(compute|imbalance) \[clone \._omp_fn|\.omp_outlined', x) for x in fr) and \
            'compute' not in fr and 'imbalance' not in fr:
        print("FAIL a body outside its region's function: %s %d" % (';'.join(fr), w))
        bad += 1
sys.exit(1 if bad else 0)
