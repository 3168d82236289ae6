#!/usr/bin/env python3
"""thread_shares.py — each thread's share of the profile against the share
of the process's CPU the kernel accounted to it (both from one run, so the
machine's load moves neither alone).

usage: thread_shares.py COLLAPSED THREADS_CSV PATH_PREFIX ROUTINE... 
For each ROUTINE (a thread's start routine in THREADS_CSV, `tally report
--threads --format csv`): the weight of the stacks starting with
PATH_PREFIX;ROUTINE over the whole profile is within 0.025 of the
routine's thread's kernel CPU over all threads' (each less its collector
CPU).  Exit 1 if any is not.
"""
import csv
import sys

stacks = []
for line in open(sys.argv[1]):
    path, w = line.rstrip('\n').rsplit(' ', 1)
    stacks.append((path, float(w)))
whole = sum(w for _, w in stacks)
rows = list(csv.DictReader(open(sys.argv[2])))
def own(r):
    return float(r['kernel_cpu']) - float(r['collector_cpu'])   # the collector's is in no sample


kernel = sum(own(r) for r in rows)
bad = 0
for routine in sys.argv[4:]:
    prefix = sys.argv[3] + ';' + routine
    got = sum(w for p, w in stacks if p == prefix or p.startswith(prefix + ';')) / whole
    want = sum(own(r) for r in rows if r['start'] == routine) / kernel
    ok = abs(got - want) <= 0.025
    bad += not ok
    print('%s %s: got %.4f, kernel %.4f' % ('ok  ' if ok else 'FAIL', prefix, got, want))
sys.exit(1 if bad else 0)
