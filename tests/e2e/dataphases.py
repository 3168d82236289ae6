#!/usr/bin/env python3
"""dataphases.py — a data object's share of the CPU against the program's
own measure of it, for test_dataphases.sh.

usage: dataphases.py OUT.txt OBJECTS.json PHASE OBJECT [FUNC]
       dataphases.py --filter OBJECTS.json FUNCS.json OBJECT FUNC
OUT.txt is tests/progs/dataphases.c's output: each phase's CPU seconds
(its thread's CPU clock) and the process's total; OBJECTS.json is
`tally report --data-objects --format json`.  The data object OBJECT's
share of the samples' CPU must be within 0.05 of PHASE's share of the
process's CPU (the program reads only that object in that phase), and, if
FUNC is given, FUNC must be the function that accessed it most.
With --filter, FUNCS.json is `tally report --data-object OBJECT -n
--format json`: its <Total> must be exactly OBJECT's samples and CPU in
OBJECTS.json (the same samples), and FUNC, the function that accessed it
most, must hold the share of them that OBJECTS.json gives it.
Exit 1 with the numbers if not.
"""
import json
import sys

TOLERANCE = 0.05


def filtered():
    objs_path, funcs_path, name, func = sys.argv[2:6]
    with open(objs_path) as f:
        objs = json.load(f).get('data_objects_cpu', [])
    with open(funcs_path) as f:
        funcs = json.load(f).get('functions', [])
    o = [r for r in objs if r['depth'] == 0 and r['name'] == name][0]
    total = [r for r in funcs if r['name'] == '<Total>'][0]
    fn = [r for r in funcs if r['name'].split(' ')[0] == func]
    print(f'{name}: {o["samples"]} samples, {o["cpu"]} s; filtered <Total> {total["excl_samples"]} samples, '
          f'{total["excl_cpu"]} s; {func}: {fn[0]["excl_cpu_pct"] if fn else None}% of them, '
          f'{o["top_function"]} {o["top_pct"]}% in the data objects view')
    ok = o['samples'] >= 20 and total['excl_samples'] == o['samples'] and abs(total['excl_cpu'] - o['cpu']) < 1e-6
    ok = ok and bool(fn) and o['top_function'].split(' ')[0] == func
    ok = ok and abs(fn[0]['excl_cpu_pct'] - o['top_pct']) <= 0.011
    sys.exit(0 if ok else 1)


def main():
    if sys.argv[1] == '--filter':
        filtered()
    out, objs_path, phase, name = sys.argv[1:5]
    func = sys.argv[5] if len(sys.argv) > 5 else None
    spent = {}
    with open(out) as f:
        for line in f:
            k, v = line.split()
            spent[k] = float(v)
    want = spent[phase] / spent['total']
    with open(objs_path) as f:
        objs = json.load(f).get('data_objects_cpu', [])
    rows = [r for r in objs if r['depth'] == 0 and r['name'] == name]
    if not rows:
        sys.exit(f'no data object {name}: {[r["name"] for r in objs if r["depth"] == 0]}')
    got = rows[0]['pct'] / 100.0
    top = rows[0]['top_function'].split(' ')[0]
    print(f'{name}: {got:.4f} of the CPU ({rows[0]["samples"]} samples); phase {phase}: '
          f'{spent[phase]:.3f} s of {spent["total"]:.3f} s = {want:.4f}; accessed most by {top}')
    ok = abs(got - want) <= TOLERANCE and rows[0]['samples'] >= 20
    ok = ok and (func is None or top == func)
    sys.exit(0 if ok else 1)


main()
