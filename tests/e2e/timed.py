#!/usr/bin/env python3
"""timed.py CSV OUT — checks of `tally report --gprof=timed --format csv` (CSV)
against what tests/progs/cyg_runtime.c printed (OUT): its own clock's time of
napper() and of many(), which called the empty tiny() N times.

- napper's time, from entry to exit, is the program's own measure of it,
  less at most a millisecond (the runtime's enter and exit around it);
- the runtime's own time was taken out, as the listing's first table says:
  many's time plus its calls' runtime (N x call_ns, and own_ns) is the
  program's own measure of many() within 5% + 2 ms;
- what is taken out per call is the runtime's cost: between half and 1.5
  times the fastest batch's time per call of tiny() that the program
  measured (tiny does nothing; the fastest batch had no preemption), and
  the part of it inside a call's own interval is less than that.
(Not checked: tiny's own time per call, which under load holds the
preemptions that fell between its clock reads.)"""
import csv
import re
import sys

meas = dict(l.split() for l in open(sys.argv[2]) if l.strip())
napper_ns, many_ns, n = int(meas['napper_ns']), int(meas['many_ns']), int(meas['calls'])
fastest = int(meas['fastest_call_ns'])
tables, cur = [], []
for row in csv.reader(open(sys.argv[1])):
    if not row:
        if cur:
            tables.append(cur)
        cur = []
    else:
        cur.append(row)
if cur:
    tables.append(cur)
kv = {r[0]: r[1] for r in tables[0][1:]}
assert kv['method'] == 'timed', kv
m = re.search(r'own time: (\d+) ns of each call\'s, (\d+) ns per call made inside', kv['time_per_arc'])
assert m, kv['time_per_arc']
own, per_call = int(m.group(1)), int(m.group(2))
assert per_call > 0, per_call
flat = {r['name']: r for r in (dict(zip(tables[1][0], r)) for r in tables[1][1:])}
total = lambda f: int(flat[f]['total_per_call_ns']) * int(flat[f]['calls'])
nap = int(flat['napper']['self_ns'])
assert napper_ns - 1e6 <= nap <= napper_ns, ('napper', nap, napper_ns)
many_total = sum(int(r[5]) + int(r[6]) for r in tables[3][1:] if r[0] == 'main' and r[2] == 'many')
taken = n * per_call + own
assert abs(many_total + taken - many_ns) <= 0.05 * many_ns + 2e6, ('many', many_total, taken, many_ns)
assert 0.5 * fastest <= per_call <= 1.5 * fastest and own < per_call, ('per call', own, per_call, fastest)
assert int(flat['tiny']['calls']) == n + 200 * 64, flat['tiny']
many_tiny = [r for r in tables[3][1:] if r[0] == 'many' and r[2] == 'tiny']
assert many_tiny and int(many_tiny[0][4]) == n, many_tiny
print('napper %.1f ms (program %.1f); many %.1f ms + %.1f ms runtime (program %.1f); %d+%d ns per call (fastest %d)'
      % (nap / 1e6, napper_ns / 1e6, many_total / 1e6, taken / 1e6, many_ns / 1e6, own, per_call, fastest))
