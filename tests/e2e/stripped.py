#!/usr/bin/env python3
"""stripped.py — checks on the functions tally finds in stripped binaries.

usage:
  stripped.py symbols REPORT.csv UNSTRIPPED OBJNAME F=SHARE ... TOL
      each F of the unstripped binary (nm) is a row `<static>@0xOFF (OBJNAME)`
      of the stripped binary's report, OFF its file offset, with that share
      of the exclusive CPU (within TOL)
  stripped.py perf REPORT.csv PERF.txt OBJNAME N TOL
      the N hottest functions of OBJNAME in tally's report hold the shares
      perf gives to the addresses inside them (perf report --sort dso,sym),
      and perf's hottest address lies in tally's hottest function; shares
      are of the object's own samples, within TOL
"""
import csv
import re
import subprocess
import sys


def rows(path, obj):
    """(start offset, excl seconds) of every <static> row of obj."""
    out = {}
    for r in csv.DictReader(open(path)):
        m = re.fullmatch(r'<static>@0x([0-9a-f]+) \((.*)\)', r['name'])
        if m and m.group(2) == obj:
            out[int(m.group(1), 16)] = float(r['excl_cpu'])
    return out


def file_offsets(binary):
    """name -> file offset of each function symbol of an unstripped binary."""
    secs = []
    for line in subprocess.run(['readelf', '-SW', binary], capture_output=True,
                               text=True, check=True).stdout.splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)', line)
        if m:
            secs.append((int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16)))
    offs = {}
    for line in subprocess.run(['nm', '--defined-only', binary], capture_output=True,
                               text=True, check=True).stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'tT':
            a = int(p[0], 16)
            for addr, off, size in secs:
                if addr <= a < addr + size and addr:
                    offs[p[2]] = a - addr + off
    return offs


def check_symbols(report, binary, obj, specs, tol):
    got = rows(report, obj)
    total = sum(got.values())
    offs = file_offsets(binary)
    bad = 0
    for spec in specs:
        name, share = spec.split('=')
        off = offs[name]
        have = got.get(off, 0.0) / total if total else 0
        ok = abs(have - float(share)) <= tol
        print(f"{'ok ' if ok else 'BAD'} {name} at 0x{off:x}: share {have:.3f}, want {share}")
        bad += not ok
    return bad


def check_perf(report, perf_txt, obj, n, tol):
    got = rows(report, obj)
    starts = sorted(got)
    per = {}
    hottest, hottest_pct = None, -1.0
    for line in open(perf_txt):
        m = re.match(r'\s*([\d.]+)%\s+(\S+)\s+\[\.\]\s+0x([0-9a-f]+)', line)
        if not m or m.group(2) != obj:
            continue
        pct, addr = float(m.group(1)), int(m.group(3), 16)
        if pct > hottest_pct:
            hottest, hottest_pct = addr, pct
        k = max((s for s in starts if s <= addr), default=None)
        per[k] = per.get(k, 0.0) + pct
    ptotal, ttotal = sum(per.values()), sum(got.values())
    if not ptotal or not ttotal:
        print('BAD no samples of', obj, ptotal, ttotal)
        return 1
    top = sorted(got, key=lambda s: -got[s])[:n]
    bad = 0
    for s in top:
        t, p = got[s] / ttotal, per.get(s, 0.0) / ptotal
        ok = abs(t - p) <= tol
        print(f"{'ok ' if ok else 'BAD'} <static>@0x{s:x}: tally {t:.3f}, perf {p:.3f}")
        bad += not ok
    k = max(s for s in starts if s <= hottest)
    ok = k == top[0]
    print(f"{'ok ' if ok else 'BAD'} perf's hottest address 0x{hottest:x} is in 0x{k:x}; tally's hottest is 0x{top[0]:x}")
    return bad + (not ok)


def main():
    a = sys.argv
    if a[1] == 'symbols':
        bad = check_symbols(a[2], a[3], a[4], a[5:-1], float(a[-1]))
    else:
        bad = check_perf(a[2], a[3], a[4], int(a[5]), float(a[6]))
    sys.exit(1 if bad else 0)


main()
