#!/usr/bin/env python3
"""static_shares.py — the outside mode's shares against perf's, same run.

usage: static_shares.py TALLY_CSV PERF_TXT TOL F1 [F2...]
TALLY_CSV: `tally report --functions --format csv` (excl_cpu by name);
PERF_TXT: `perf report --no-children --sort sym --stdio -q --percentage
relative` of the same run, restricted to the program's comm.  Each
function's exclusive share of the sampled CPU in tally must be within TOL
of its share of perf's user-mode samples (`[.]`): tally's outside mode
gives a tick in the kernel to the user stack that entered it, perf to a
`[k]` symbol, whose share grows with the machine's load (interrupts,
scheduling: 5-10% of perf's samples at load 13, where the shares of all
samples were off by 0.05-0.08).  Prints both; exit 1 if any is off.
"""
import csv
import re
import sys


def main():
    tcsv, ptxt, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
    rows = list(csv.DictReader(open(tcsv)))
    total = sum(float(r['excl_cpu']) for r in rows if r['name'] != '<Total>')
    tally = {}
    for r in rows:
        if r['name'] != '<Total>':
            tally[r['name']] = tally.get(r['name'], 0) + float(r['excl_cpu']) / total
    perf, kernel = {}, 0.0
    for line in open(ptxt):
        m = re.match(r'\s*([0-9.]+)%\s+\[([.k])\]\s+(\S+)', line)
        if m and m.group(2) == '.':
            perf[m.group(3)] = perf.get(m.group(3), 0) + float(m.group(1)) / 100
        elif m:
            kernel += float(m.group(1)) / 100
    user = sum(perf.values())
    print("perf: %.3f of its samples in user mode, %.3f in [k]" % (user, kernel))
    perf = {f: v / user for f, v in perf.items()} if user > 0 else perf
    bad = 0
    for f in sys.argv[4:]:
        t, p = tally.get(f, 0.0), perf.get(f, 0.0)
        ok = abs(t - p) <= tol and p > 0
        print('%s: tally %.3f perf %.3f %s' % (f, t, p, 'ok' if ok else 'OFF by more than %.2f' % tol))
        bad += not ok
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
