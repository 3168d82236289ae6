#!/usr/bin/env python3
"""dataobj.py — assertions on `tally report --data-objects / --data-layout
--format json` of tests/progs/dataobjs.c, for test_dataobj.sh.

usage: dataobj.py FUNCS.json OBJECTS.json LAYOUT.json CHECK
CHECK is one of:
  object OBJ FUNC  data object OBJ's share of the CPU is at least 0.9 of
                   function FUNC's (its phase reads OBJ only: the rest are
                   samples with no address) and at most FUNC's plus the
                   share of every function but the three phases' (set-up
                   and start-up code may touch OBJ too), and FUNC accessed
                   it most
  member OBJ M     the member row M under OBJ holds all of OBJ's samples
                   but at most 1, and no other member of it has any
  layout T HOT     structure T in the layout: member HOT has T's samples
                   but at most 1, every other member none, offsets rising
  total            the data objects' samples are the experiment's samples
The bounds come from the experiment itself: its function shares, its
sample count.  Exit 1 with the numbers if a check fails.
"""
import json
import sys


PHASES = ('walk_parts', 'sum8', 'walk_stack')


def load(path, key):
    with open(path) as f:
        return json.load(f).get(key, [])


def main():
    funcs = load(sys.argv[1], 'functions')
    objs = load(sys.argv[2], 'data_objects_cpu')
    layout = load(sys.argv[3], 'data_layout')
    what = sys.argv[4:]
    total = next(r for r in objs if r['name'] == '<Total>')
    n = total['samples']
    one = 100.0 / n if n else 100.0

    def obj(name):
        for i, r in enumerate(objs):
            if r['depth'] == 0 and r['name'] == name:
                return i, r
        sys.exit(f'no data object {name}: {[r["name"] for r in objs]}')

    if what[0] == 'object':
        _, o = obj(what[1])
        f = [r for r in funcs if r['name'].split(' ')[0] == what[2]]
        if not f:
            sys.exit(f'no function {what[2]}')
        fs = f[0]['excl_cpu_pct']
        phases = sum(r['excl_cpu_pct'] for r in funcs if r['name'].split(' ')[0] in PHASES)
        rest = max(0.0, 100.0 - phases)
        print(f'{what[1]} {o["pct"]}% of {n} samples; {what[2]} {fs}%, outside the phases {rest:.2f}%; '
              f'accessed most by {o["top_function"]}')
        ok = o['pct'] >= 0.9 * fs and o['pct'] <= fs + rest + one + 0.01
        ok = ok and o['top_function'].split(' ')[0] == what[2]
    elif what[0] == 'member':
        i, o = obj(what[1])
        members = []
        for r in objs[i + 1:]:
            if r['depth'] == 0:
                break
            members.append(r)
        print(f'{what[1]}: {o["samples"]} samples; members {[(r["name"], r["samples"]) for r in members]}')
        hot = [r for r in members if r['name'] == what[2]]
        ok = bool(hot) and hot[0]['samples'] >= o['samples'] - 1
        ok = ok and all(r['samples'] == 0 for r in members if r['name'] != what[2])
        ok = ok and o['samples'] >= 20
    elif what[0] == 'layout':
        rows, cur = [], False
        for r in layout:
            if r['depth'] == 0:
                cur = r['name'] == '{' + what[1] + '}'
                if cur:
                    top = r
            elif cur:
                rows.append(r)
        if not rows:
            sys.exit(f'no structure {what[1]} in the layout')
        print(f'{what[1]}: {top["samples"]} samples, size {top["size"]}; '
              f'{[(r["name"], r["offset"], r["size"], r["samples"]) for r in rows]}')
        offs = [r['offset'] for r in rows]
        ok = offs == sorted(offs) and top['samples'] >= 20
        ok = ok and all((r['samples'] >= top['samples'] - 1) if r['name'] == '.' + what[2]
                        else r['samples'] == 0 for r in rows)
        ok = ok and any(r['name'] == '.' + what[2] for r in rows)
    elif what[0] == 'total':
        s = sum(r['samples'] for r in objs if r['depth'] == 0 and r['name'] != '<Total>')
        print(f'data objects {s} samples, <Total> {n}')
        ok = s == n and n > 0
    else:
        sys.exit(f'unknown check {what}')
    sys.exit(0 if ok else 1)


main()
