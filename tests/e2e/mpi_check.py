#!/usr/bin/env python3
"""mpi_check.py — assertions on `tally report JOB --ranks --format json`, for
tests/e2e/test_mpi.sh.

usage: mpi_check.py RANKS_JSON CHECK [CHECK...]
A CHECK is one string:
  'ranks N'              the job has N ranks
  'split S0,S1,... TOL'  each rank's share of the job's CPU outside MPI is
                         its S (normalized) within TOL
  'slowest R'            the imbalance names rank R the slowest
  'top R CALL[|CALL]'    rank R waited most in one of these MPI functions
  'sent R BYTES'         rank R's mpi.bytes.sent
  'recv R BYTES'         rank R's mpi.bytes.recv
  'measured FILE TOL'    each rank's share of the job's CPU outside MPI is
                         the share the program measured itself, within
                         TOL: FILE holds `mpi_work imbalance`'s output,
                         lines "outside RANK NS" (tests/progs/mpi_work.c)
Prints what it checked; exit 1 if any check fails.
"""
import json
import sys


def main():
    doc = json.load(open(sys.argv[1]))
    rows = {r['rank']: r for r in doc['ranks']}
    work = sum(r['cpu_outside_mpi'] for r in rows.values())
    share = {k: r['cpu_outside_mpi'] / work for k, r in rows.items()} if work else {}
    bad = 0
    for spec in sys.argv[2:]:
        t = spec.split()
        if t[0] == 'ranks':
            ok, got = len(rows) == int(t[1]), len(rows)
        elif t[0] == 'split':
            want = [float(x) for x in t[1].split(',')]
            want = [w / sum(want) for w in want]
            got = [round(share.get(k, 0), 3) for k in range(len(want))]
            ok = all(abs(g - w) <= float(t[2]) for g, w in zip(got, want))
        elif t[0] == 'slowest':
            got = doc['imbalance']['slowest_rank']
            ok = got == int(t[1])
        elif t[0] == 'top':
            got = rows[int(t[1])]['top_mpi_call']
            ok = got in t[2].split('|')
        elif t[0] in ('sent', 'recv'):
            got = rows[int(t[1])]['bytes_' + t[0]]
            ok = got == int(t[2])
        elif t[0] == 'measured':
            own = {}
            for line in open(t[1]):
                w = line.split()
                if len(w) == 3 and w[0] == 'outside':
                    own[int(w[1])] = float(w[2])
            total = sum(own.values())
            got = {k: (round(share.get(k, 0), 3), round(v / total, 3)) for k, v in sorted(own.items())}
            ok = len(own) == len(rows) and total > 0 and \
                all(abs(g - w) <= float(t[2]) for g, w in got.values())
        else:
            print('unknown check', spec)
            return 2
        print('%s %s: %s' % ('ok  ' if ok else 'FAIL', spec, got))
        bad += not ok
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
