#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tb.py — the benchmark helper of bench/run.sh (Python 3 standard library only).

Subcommands:

  time   run commands interleaved, round after round, and print wall-time
         statistics and ratios to a base command measured in the same rounds.
           tb.py time --rounds N [--warmup W] [--base LABEL] [--check REGEX]
                      [--json FILE] --cmd LABEL 'ARGV' [--pre LABEL 'SH'] ...
         ARGV is split like a shell word list (shlex) and run directly, with
         posix_spawn (no shell, so no shell start-up is timed); stdout and
         stderr go to files.  --pre runs SH (through sh, untimed) before each
         run of LABEL, e.g. to delete the previous experiment.  In round r the
         command list is rotated by r, so every command runs in every position.
         A command that fails (status != 0) is dropped from later rounds and
         reported as "n/a (why)".  Per command: median, min and max wall time;
         with --base, the median [min-max] of its per-round ratios to the
         base, the ratio of the two minimums, and the median ratio of CPU
         time (user + system, from wait4).  --check REGEX: every run's stdout must
         contain REGEX, and the first match must be the same in every run of
         every command (the workload's checksum).
  get    print one value from a JSON file:  tb.py get FILE KEY[.KEY...]
  row    add a line to the summary table:
           tb.py row FILE METRIC VALUE TARGET PEER
         TARGET is "<= X", ">= X", "within P% of 1" or "-" (no target);
         VALUE starts with a number (the one judged; "1.01 [0.99-1.03]" is
         fine) or is "n/a (why)"; the verdict is computed here.
  table  print the summary table:  tb.py table FILE
  stats  median and spread of numbers on stdin (one per line).
  zeros  bytes of a file or directory that are all-zero 4 KiB pages (space a
         writer reserved and never filled):  tb.py zeros PATH
"""
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time


def fmt(x, nd=3):
    return "n/a" if x is None else f"{x:.{nd}f}"


def spread(xs):
    """(median, min, max, relative half-spread of the interquartile range)."""
    xs = sorted(xs)
    med = statistics.median(xs)
    if len(xs) >= 4:
        q = statistics.quantiles(xs, n=4)
        iqr = q[2] - q[0]
    else:
        iqr = xs[-1] - xs[0]
    return med, xs[0], xs[-1], (iqr / 2 / med if med else 0.0)


def run_once(argv, out_path, err_path):
    """Run argv; return (wall_s, cpu_s, status, maxrss_kb)."""
    exe = shutil.which(argv[0]) or argv[0]
    fa = [
        (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
        (os.POSIX_SPAWN_OPEN, 2, err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
    ]
    t0 = time.perf_counter_ns()
    try:
        pid = os.posix_spawn(exe, argv, os.environ, file_actions=fa)
    except OSError as e:
        with open(err_path, "w") as f:
            f.write(f"cannot run {argv[0]}: {e.strerror}\n")
        return None, None, 127, None
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter_ns()
    code = os.waitstatus_to_exitcode(status)
    return (t1 - t0) / 1e9, ru.ru_utime + ru.ru_stime, code, ru.ru_maxrss


def first_line(path):
    try:
        with open(path, errors="replace") as f:
            lines = [l.strip() for l in f if l.strip()]
    except OSError:
        return "?"
    # The last line usually says what went wrong.
    return (lines[-1] if lines else "no message")[:100]


def cmd_time(args):
    import argparse

    p = argparse.ArgumentParser(prog="tb.py time")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--base")
    p.add_argument("--check")
    p.add_argument("--json")
    p.add_argument("--dir", default=".")
    p.add_argument("--cmd", nargs=2, action="append", metavar=("LABEL", "ARGV"), required=True)
    p.add_argument("--pre", nargs=2, action="append", metavar=("LABEL", "SH"), default=[])
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(args)

    labels = [c[0] for c in a.cmd]
    argvs = {c[0]: shlex.split(c[1]) for c in a.cmd}
    pres = {l: s for l, s in a.pre}
    res = {l: {"wall": [], "cpu": [], "rss": [], "round": [], "failed": None, "check": None}
           for l in labels}
    os.makedirs(a.dir, exist_ok=True)
    check_re = re.compile(a.check) if a.check else None

    for r in range(a.warmup + a.rounds):
        k = r % len(labels)
        for l in labels[k:] + labels[:k]:
            d = res[l]
            if d["failed"]:
                continue
            if l in pres:
                subprocess.run(pres[l], shell=True, check=False)
            safe = re.sub(r"[^A-Za-z0-9_.-]", "_", l)
            out, err = os.path.join(a.dir, safe + ".out"), os.path.join(a.dir, safe + ".err")
            wall, cpu, code, rss = run_once(argvs[l], out, err)
            if code != 0:
                d["failed"] = f"exit {code}: {first_line(err)}"
                continue
            if check_re:
                with open(out, errors="replace") as f:
                    m = check_re.search(f.read())
                if not m:
                    d["failed"] = f"no /{a.check}/ in its output"
                    continue
                d["check"] = d["check"] or m.group(0)
                if m.group(0) != d["check"]:
                    d["failed"] = f"output changed: {m.group(0)!r} vs {d['check']!r}"
                    continue
            if r >= a.warmup:
                d["wall"].append(wall)
                d["cpu"].append(cpu)
                d["rss"].append(rss)
                d["round"].append(r)

    checks = {res[l]["check"] for l in labels if res[l]["check"] and not res[l]["failed"]}
    if check_re and len(checks) > 1:
        for l in labels:
            if res[l]["check"] and not res[l]["failed"]:
                res[l]["failed"] = f"checksum differs between commands: {sorted(checks)}"

    base = res.get(a.base) if a.base else None
    summary = {"rounds": a.rounds, "checksum": next(iter(checks)) if len(checks) == 1 else None}
    for l in labels:
        d = res[l]
        s = {"label": l, "argv": argvs[l], "failed": d["failed"], "n": len(d["wall"])}
        if d["wall"] and not d["failed"]:
            s["wall_med"], s["wall_min"], s["wall_max"], s["wall_iqr_rel"] = spread(d["wall"])
            s["cpu_med"] = statistics.median(d["cpu"])
            s["cpu_min"], s["cpu_max"] = min(d["cpu"]), max(d["cpu"])
            s["rss_kb_max"] = max(d["rss"])        # peak resident set of one run
            s["wall"], s["cpu"], s["round"] = d["wall"], d["cpu"], d["round"]
            if base is not None and base is not d and base["wall"] and not base["failed"]:
                bw = dict(zip(base["round"], base["wall"]))
                bc = dict(zip(base["round"], base["cpu"]))
                pairs = [(w / bw[r], c / bc[r], w - bw[r])
                         for r, w, c in zip(d["round"], d["wall"], d["cpu"]) if r in bw]
                if pairs:
                    rw = [x[0] for x in pairs]
                    s["ratio_med"], s["ratio_min"], s["ratio_max"], _ = spread(rw)
                    s["cpu_ratio_med"] = statistics.median(x[1] for x in pairs)
                    s["ratio_of_mins"] = min(d["wall"]) / min(base["wall"])
                    s["diff_med"], s["diff_min"], s["diff_max"], _ = spread([x[2] for x in pairs])
        summary[l] = s

    if not a.quiet:
        if summary["checksum"]:
            print(f"  work check: '{summary['checksum']}' identical in every run")
        print(f"  {a.rounds} interleaved rounds (+{a.warmup} warm-up, discarded); wall seconds")
        hdr = f"  {'command':<16} {'median':>8} {'min':>8} {'max':>8}"
        if base is not None:
            hdr += f"  {'ratio to ' + a.base + ': median [min-max]':<32} {'min/min':>7} {'cpu ratio':>9}"
        print(hdr)
        for l in labels:
            s = summary[l]
            if s["failed"]:
                print(f"  {l:<16} n/a ({s['failed']})")
                continue
            line = f"  {l:<16} {s['wall_med']:8.4f} {s['wall_min']:8.4f} {s['wall_max']:8.4f}"
            if "ratio_med" in s:
                line += (f"  {s['ratio_med']:.4f} [{s['ratio_min']:.4f}-{s['ratio_max']:.4f}]"
                         + " " * 6 + f"{s['ratio_of_mins']:7.4f} {s['cpu_ratio_med']:9.4f}")
            print(line)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
    return 0


def cmd_get(args):
    with open(args[0]) as f:
        v = json.load(f)
    for k in args[1].split("."):
        if isinstance(v, list):
            v = v[int(k)]
        elif isinstance(v, dict) and k in v:
            v = v[k]
        else:
            print("")
            return 1
    print("" if v is None else v)
    return 0


def verdict(value, target):
    m = re.match(r"\s*([-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?)", value)
    if not m:
        return "n/a"
    v = float(m.group(1))
    t = target.strip()
    m = re.fullmatch(r"(<=|>=|<|>)\s*([0-9.eE+-]+).*", t)
    if m:
        x = float(m.group(2))
        ok = {"<=": v <= x, ">=": v >= x, "<": v < x, ">": v > x}[m.group(1)]
        return "PASS" if ok else "MISS"
    m = re.fullmatch(r"within\s+([0-9.]+)%\s+of\s+([0-9.]+)", t)
    if m:
        return "PASS" if abs(v - float(m.group(2))) <= float(m.group(1)) / 100 * float(m.group(2)) else "MISS"
    return "-"


def cmd_row(args):
    path, metric, value, target, peer = args
    with open(path, "a") as f:
        f.write("\t".join([metric, value, target, peer, verdict(value, target)]) + "\n")
    return 0


def cmd_table(args):
    rows = []
    try:
        with open(args[0]) as f:
            rows = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    except OSError:
        pass
    head = ["metric", "tally", "target", "peer", "result"]
    w = [max(len(r[i]) for r in rows + [head]) for i in range(5)]
    line = lambda r: "  ".join(r[i].ljust(w[i]) for i in range(5)).rstrip()
    print(line(head))
    print("  ".join("-" * x for x in w))
    for r in rows:
        print(line(r))
    print()
    n = {k: sum(1 for r in rows if r[4] == k) for k in ("PASS", "MISS", "n/a")}
    print(f"{n['PASS']} PASS, {n['MISS']} MISS, {n['n/a']} n/a")
    return 0


def cmd_stats(args):
    xs = [float(l) for l in sys.stdin if l.strip()]
    if not xs:
        print("n/a")
        return 1
    med, lo, hi, _ = spread(xs)
    print(f"{med} {lo} {hi}")
    return 0


def cmd_zeros(args):
    files = []
    if os.path.isdir(args[0]):
        for dp, _, fns in os.walk(args[0]):
            files += [os.path.join(dp, f) for f in fns]
    else:
        files = [args[0]]
    z = 0
    page = bytes(4096)
    for fn in files:
        with open(fn, "rb") as f:
            while True:
                b = f.read(1 << 20)
                if not b:
                    break
                for o in range(0, len(b) - 4095, 4096):
                    if b[o:o + 4096] == page:
                        z += 4096
    print(z)
    return 0


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 64
    fn = {"time": cmd_time, "get": cmd_get, "row": cmd_row, "table": cmd_table,
          "stats": cmd_stats, "zeros": cmd_zeros}.get(sys.argv[1])
    if not fn:
        print(__doc__, file=sys.stderr)
        return 64
    return fn(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
