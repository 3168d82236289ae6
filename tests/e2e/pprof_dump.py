#!/usr/bin/env python3
"""pprof_dump.py FILE — decode a gzipped pprof profile (protobuf wire format,
written by `tally export --format pprof`) and print collapsed stacks per
sample type: `TYPE root;...;leaf VALUE`.  A minimal decoder for the tests."""
import gzip
import sys


def fields(buf):
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 2:
            n, i = varint(buf, i)
            v, i = buf[i:i + n], i + n
        else:
            raise SystemExit('wire type %d' % wt)
        yield f, v


def varint(buf, i):
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def packed(v):
    if isinstance(v, int):
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


prof = gzip.open(sys.argv[1]).read()
strings, types, samples, locs, funcs = [], [], [], {}, {}
for f, v in fields(prof):
    if f == 6:
        strings.append(v.decode())
    elif f == 1:
        types.append(dict(fields(v)))
    elif f == 2:
        s = {1: [], 2: []}
        for g, w in fields(v):
            s[g] += packed(w)
        samples.append(s)
    elif f == 4:
        d = dict(fields(v))
        locs[d[1]] = dict(fields(d[4]))[1]
    elif f == 5:
        d = dict(fields(v))
        funcs[d[1]] = d.get(2, 0)
for k, t in enumerate(types):
    for s in samples:
        if s[2][k]:
            names = [strings[funcs[locs[l]]] for l in reversed(s[1])]
            print(strings[t[1]], ';'.join(names), s[2][k])
