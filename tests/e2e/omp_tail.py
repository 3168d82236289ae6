#!/usr/bin/env python3
"""omp_tail.py — one thread's profile of an OpenMP body that tail-calls its
work (tests/e2e/test_omp_tail.sh), in the user view against the machine view.

usage: omp_tail.py MACHINE USER WORK:OPENER...
MACHINE and USER are the thread's collapsed stacks in `--view machine` and
the default view.  For each WORK:OPENER pair: WORK's inclusive share in the
user view is within 0.03 of its share in the machine view (the frames as
recorded, where the work is plainly under the runtime), and in the user view
that share is under OPENER (the function that opened the region), so it
is neither lost to <OMP-*> nor left without its region.  WORK must hold at
least 0.25 of the thread's machine-view time, or the check proves nothing.
"""
import sys

from measured import read_stacks

TOL = 0.03


def share(stacks, pred):
    total = sum(w for _, w in stacks)
    return sum(w for f, w in stacks if pred(f)) / total if total else 0.0


def main():
    machine, user = read_stacks(sys.argv[1]), read_stacks(sys.argv[2])
    bad = 0
    for pair in sys.argv[3:]:
        work, opener = pair.split(':')
        m = share(machine, lambda f: work in f)
        u = share(user, lambda f: work in f)
        under = share(user, lambda f: work in f and opener in f[:f.index(work)])
        omp = share(user, lambda f: f[-1].startswith('<OMP-'))
        ok = m >= 0.25 and abs(u - m) <= TOL and abs(under - m) <= TOL
        print(f"{'ok' if ok else 'FAILED'}: {work} machine {m:.4f} user {u:.4f} "
              f"under {opener} {under:.4f} (<OMP-*> {omp:.4f})")
        bad += not ok
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
