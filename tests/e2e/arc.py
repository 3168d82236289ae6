#!/usr/bin/env python3
"""arc.py FILE CALLER CALLEE — the count of an arc in `tally export --format
arcs` output (`caller<TAB>callee<TAB>count`), summed; 0 if absent."""
import sys

n = 0
for line in open(sys.argv[1]):
    f = line.rstrip('\n').split('\t')
    if len(f) == 3 and f[0] == sys.argv[2] and f[1] == sys.argv[3]:
        n += int(f[2])
print(n)
