#!/usr/bin/env python3
"""weight.py FILE SUFFIX — total weight of the collapsed stacks of FILE whose
last frames are SUFFIX (`a;b`), printed as an integer.  For the e2e tests."""
import sys

want = sys.argv[2].split(';')
total = 0
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    if not line:
        continue
    frames, w = line.rsplit(' ', 1)
    frames = frames.split(';')
    if frames[-len(want):] == want:
        total += int(float(w))
print(total)
