"""measured.py — what the e2e checks that compare a profile with a program's
own measure share: the program's line of `KEY VALUE` pairs (seconds of CPU
time, printed by tests/progs/ompy.c and shapes.c) and a collapsed-stack file
as (frames, weight) pairs.  Imported by omp_shares.py and shapes.py.
"""


def read_measured(path):
    """The program's `KEY VALUE ...` line as {KEY: float(VALUE)}."""
    out = open(path).read().split()
    return {out[i]: float(out[i + 1]) for i in range(0, len(out) - 1, 2)}


def read_stacks(path):
    """A collapsed-stack file as [(frames, weight)]."""
    stacks = []
    for line in open(path):
        frames, w = line.rstrip('\n').rsplit(' ', 1)
        stacks.append((frames.split(';'), float(w)))
    return stacks
