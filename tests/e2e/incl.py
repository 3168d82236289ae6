#!/usr/bin/env python3
"""incl.py FILE FUNC [FUNC...] — total weight of the collapsed stacks of FILE
that hold any of the FUNCs (each stack counted once), printed as an integer.
For the e2e tests."""
import sys

want = set(sys.argv[2:])
total = 0
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    if not line:
        continue
    frames, w = line.rsplit(' ', 1)
    if want & set(frames.split(';')):
        total += int(float(w))
print(total)
