#!/usr/bin/env python3
# phases_window.py — tally's blocked time of tests/progs/attach_phases.c's
# main thread, per phase, against what the program measured of each phase's
# occurrences within the attached window (test_attach_states.sh).
#
#   phases_window.py PHASES_LOG EXP FOLDED_DIR
#
# PHASES_LOG: the program's lines "PHASE START END RUNNABLE CPU" and "main
# TID".  The window: the collector's start.mono_ns and end.mono_ns, from
# EXP's log.txt.  FOLDED_DIR holds
# `tally export --format collapsed --metric M --thread MAIN` for
# M = wait.sleep, wait.io, wait.lock (M.folded), weights in ns.
#
# A phase's blocked time is its wall time less its runnable time (the
# kernel's run_delay: wait.cpu in tally) and its CPU.  tally may see, of the
# occurrences that overlap the window, at most all of them; of those wholly
# inside it, all but the one under way when the thread's event opened and
# the one under way when the collector stopped (each no longer than the
# longest occurrence the program measured).  Bounds: [inside - 2 * longest
# - 2 ms, overlapping + 2 ms + 2%] (2 ms and 2%: the clock reads around
# each phase).  A batch of several blocks (EXP_STATE_WAKE_SPREAD: the
# first after the attach, or a clock sample's catch-up) shares one run
# delay's growth among them evenly, not as it was: an occurrence with such
# a block may get less than its own wait for a CPU, at most all of it, so
# the upper bound adds the program's runnable time of those occurrences
# (said as "spread"; one run in 12 at load 17, 3.3 ms, read's wait given to
# the next lock's block).  Exit 1 when a phase is out of its bounds, or was
# never seen.
import os
import sys

from states_window import log_value, states

WAKE_SPREAD, PREEMPTED = 0x8, 0x1

PHASES = {"sleep": ("wait.sleep", "phase_sleep"), "read": ("wait.io", "phase_read"),
          "lock": ("wait.lock", "phase_lock")}


def tally_ns(folded, func):
    total = 0
    with open(folded) as f:
        for line in f:
            stack, _, w = line.rstrip("\n").rpartition(" ")
            if func in stack.split(";"):
                total += int(float(w))
    return total


def main():
    log, exp, d = sys.argv[1], sys.argv[2], sys.argv[3]
    w0, w1 = log_value(exp, "start.mono_ns"), log_value(exp, "end.mono_ns")
    occs = {p: [] for p in PHASES}
    tid = None
    with open(log) as f:
        for line in f:
            p = line.split()
            if p[0] == "main":
                tid = int(p[1])
            elif p[0] in occs:
                start, end, runnable, cpu = map(int, p[1:5])
                occs[p[0]].append((start, end, max(0, end - start - runnable - cpu), runnable))
    spread = [(off, on) for t, off, on, _, _, flags in states(exp)
              if t == tid and flags & WAKE_SPREAD and not flags & PREEMPTED]
    ok = True
    for name, (metric, func) in PHASES.items():
        inside = sum(b for s, e, b, r in occs[name] if s >= w0 and e <= w1)
        overlapping = sum(b for s, e, b, r in occs[name] if e > w0 and s < w1)
        waits = sum(r for s, e, b, r in occs[name]
                    if e > w0 and s < w1 and any(off < e and on > s for off, on in spread))
        longest = max((b for s, e, b, r in occs[name] if e > w0 and s < w1), default=0)
        got = tally_ns(os.path.join(d, metric + ".folded"), func)
        lo = inside - 2 * longest - 2e6
        hi = overlapping + waits + 2e6 + 0.02 * overlapping
        good = got > 0 and lo <= got <= hi
        ok &= good
        print(f"{metric} in {func}: tally {got / 1e9:.4f} s; program {inside / 1e9:.4f} s inside the "
              f"window, {overlapping / 1e9:.4f} s overlapping it, longest {longest / 1e9:.4f} s; "
              f"spread {waits / 1e9:.4f} s; bounds [{lo / 1e9:.4f}, {hi / 1e9:.4f}] {'ok' if good else 'OUT'}")
    sys.exit(0 if ok else 1)


main()
