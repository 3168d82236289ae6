#!/usr/bin/env python3
"""consumers.py — the totals other tools report on tally's exports equal
`tally report`'s (JSON, CPU in seconds to the ms).

usage:
  consumers.py speedscope CHECK.json REPORT.json THREADS.json
      CHECK.json from tests/js/check_speedscope.mjs: speedscope's Total and
      Self of each function = tally's inclusive and exclusive CPU (when the
      program has one thread); each thread's profile sums to its CPU
  consumers.py chrome CHECK.json REPORT.json THREADS.json
      CHECK.json from tests/js/check_chrome.mjs: the self times in the call
      trees Chrome DevTools built, summed over threads = tally's exclusive
      CPU; each thread named, its self times summing to the thread's CPU
  consumers.py viewer CHECK.json REPORT.json
      CHECK.json from tests/js/check_speedscope.mjs on the chrome or the
      collapsed export of a one-thread program: a viewer in Chromium
      (speedscope's importers of Chrome's trace format and of collapsed
      stacks) shows each function's Total and Self = tally's inclusive and
      exclusive CPU; the hot functions are all there
  consumers.py pprof TOP.txt REPORT.json
      TOP.txt from `go tool pprof -top -unit=ns`: flat and cum of each
      function = exclusive and inclusive CPU, and the total
The tolerance is what the numbers were rounded to, on either side.
"""
import json
import re
import sys

MS = 1e-3


def report(path):
    """name -> (excl, incl) seconds; a name tally labels `f (object)` (one
    of several functions called f) is also found as f."""
    out = {}
    for r in json.load(open(path))['functions']:
        v = (r['excl_cpu'], r['incl_cpu'])
        out[r['name']] = v
        suffix = f" ({r['object']})"
        if r['object'] and r['name'].endswith(suffix):
            out.setdefault(r['name'][:-len(suffix)], v)
    return out


def threads(path):
    """tid -> CPU seconds of the threads with samples (a thread with one
    sample may round to 0.000 s)."""
    return {int(r['tid']): r['excl_cpu'] for r in json.load(open(path))['threads'] if r['samples']}


class Checker:
    bad = 0

    def near(self, what, got, want, tol):
        ok = abs(got - want) <= tol
        print(f"{'ok ' if ok else 'BAD'} {what}: {got:.6f} s, tally {want:.6f} s")
        self.bad += not ok


def speedscope(c, check, rep, thr):
    got = json.load(open(check))
    funcs, tally = got['functions'], report(rep)
    if len([p for p in got['profiles'] if p['name'].endswith(': cpu')]) > 1:
        funcs = {}     # speedscope shows one thread's; tally's table is all threads'
    for name, v in funcs.items():
        excl, incl = tally.get(name, (0.0, 0.0))
        tol = 0.6 * MS + 0.01 * MS
        c.near(f'{name} total', v['total_ms'] * MS, incl, tol)
        c.near(f'{name} self', v['self_ms'] * MS, excl, tol)
    per_thread = threads(thr)
    for p in got['profiles']:
        if not p['name'].endswith(': cpu'):
            continue
        tid = int(re.search(r' (\d+): cpu$', p['name']).group(1))
        c.near(f"profile {p['name']}", p['total'] / 1e9, per_thread.get(tid, 0.0), 0.6 * MS)
    # A thread whose samples weigh nothing (their CPU all the collector's:
    # the main thread creating the others) has no profile.
    cpu = len([p for p in got['profiles'] if p['name'].endswith(': cpu')])
    if not len([s for s in per_thread.values() if s > 0]) <= cpu <= len(per_thread):
        print('BAD not one cpu profile per thread'); c.bad += 1


def chrome(c, check, rep, thr):
    got = json.load(open(check))
    tally, per_thread = report(rep), threads(thr)
    summed = {}
    for key, t in got['threads'].items():
        tid = int(key.split('/')[1])
        for name, us in t['self_us'].items():
            summed[name] = summed.get(name, 0.0) + us
        if got['names']['thread'].get(key) != t['name']:
            print('BAD thread', key, 'named', t['name']); c.bad += 1
        events = len(t['self_us'])
        c.near(f"thread {t['name']}", sum(t['self_us'].values()) / 1e6, per_thread.get(tid, 0.0),
               0.6 * MS + 2e-6 * max(events, 1) * 50)
    # a thread whose samples weigh nothing (the main thread creating the
    # others, its CPU all the collector's) may have no track, nor may one
    # under a microsecond, the format's unit (its one span can round to 0)
    tids = {int(k.split('/')[1]) for k in got['threads']}
    if not {t for t, s in per_thread.items() if s >= 1e-6} <= tids <= set(per_thread):
        print('BAD threads', sorted(got['threads']), 'tally', per_thread); c.bad += 1
    for name, (excl, _) in tally.items():
        if name != '<Total>' and excl >= 0.005:
            c.near(f'{name} self', summed.get(name, 0.0) / 1e6, excl, 0.6 * MS + 0.002 * excl)


def viewer(c, check, rep):
    got, tally = json.load(open(check)), report(rep)
    # speedscope names a complete event by its name and args: `f {"object":"x"}`
    funcs = {re.sub(r' \{.*\}$', '', k): v for k, v in got['functions'].items()}
    for name, v in funcs.items():
        excl, incl = tally.get(name, (-1.0, -1.0))
        c.near(f'{name} total', v['total_ms'] * MS, incl, 0.6 * MS + 0.01 * MS)
        c.near(f'{name} self', v['self_ms'] * MS, excl, 0.6 * MS + 0.01 * MS)
    for name, (excl, _) in tally.items():
        if name != '<Total>' and excl >= 0.005 and name not in funcs:
            print('BAD', name, 'not in the viewer'); c.bad += 1


def pprof(c, top, rep):
    tally = report(rep)
    text = open(top).read()
    m = re.search(r'of (\d+)ns total', text)
    c.near('total', int(m.group(1)) / 1e9 if m else -1, tally['<Total>'][1], 0.6 * MS)
    rows = 0
    for line in text.splitlines():
        m = re.match(r'\s*(\d+)(?:ns)?\s+[\d.]+%\s+[\d.]+%\s+(\d+)(?:ns)?\s+[\d.]+%\s+(.+)$', line)
        if not m:
            continue
        rows += 1
        excl, incl = tally.get(m.group(3), (-1.0, -1.0))
        c.near(f'{m.group(3)} flat', int(m.group(1)) / 1e9, excl, 0.6 * MS)
        c.near(f'{m.group(3)} cum', int(m.group(2)) / 1e9, incl, 0.6 * MS)
    if not rows:
        print('BAD no rows in pprof -top'); c.bad += 1


def main():
    c = Checker()
    kind, args = sys.argv[1], sys.argv[2:]
    {'speedscope': speedscope, 'chrome': chrome, 'viewer': viewer,
     'pprof': pprof}[kind](c, *args)
    sys.exit(1 if c.bad else 0)


main()
