#!/usr/bin/env python3
# phases_window.py — tally's blocked time of tests/progs/attach_phases.c's
# main thread, per phase, against what the program measured of each phase's
# occurrences within the attached window (test_attach_states.sh).
#
#   phases_window.py PHASES_LOG WINDOW_START_NS WINDOW_END_NS FOLDED_DIR [outside]
#
# PHASES_LOG: the program's lines "PHASE START END RUNNABLE CPU".  The
# window: the collector's start.mono_ns and end.mono_ns.  FOLDED_DIR holds
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
# each phase, the run delay shared within a batch).  `outside`: the outside
# mode (a static program) keeps a block's wait for a CPU after its wake-up
# in the block (no schedstat from outside), so the upper bound adds the
# overlapping occurrences' runnable time.  Exit 1 when a phase is out of
# its bounds, or was never seen.
import os
import sys

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
    log, w0, w1, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    outside = len(sys.argv) > 5 and sys.argv[5] == "outside"
    occs = {p: [] for p in PHASES}
    with open(log) as f:
        for line in f:
            p = line.split()
            if p[0] in occs:
                start, end, runnable, cpu = map(int, p[1:5])
                occs[p[0]].append((start, end, max(0, end - start - runnable - cpu), runnable))
    ok = True
    for name, (metric, func) in PHASES.items():
        inside = sum(b for s, e, b, r in occs[name] if s >= w0 and e <= w1)
        overlapping = sum(b for s, e, b, r in occs[name] if e > w0 and s < w1)
        waits = sum(r for s, e, b, r in occs[name] if e > w0 and s < w1) if outside else 0
        longest = max((b for s, e, b, r in occs[name] if e > w0 and s < w1), default=0)
        got = tally_ns(os.path.join(d, metric + ".folded"), func)
        lo = inside - 2 * longest - 2e6
        hi = overlapping + waits + 2e6 + 0.02 * overlapping
        good = got > 0 and lo <= got <= hi
        ok &= good
        print(f"{metric} in {func}: tally {got / 1e9:.4f} s; program {inside / 1e9:.4f} s inside the "
              f"window, {overlapping / 1e9:.4f} s overlapping it, longest {longest / 1e9:.4f} s; "
              f"bounds [{lo / 1e9:.4f}, {hi / 1e9:.4f}] {'ok' if good else 'OUT'}")
    sys.exit(0 if ok else 1)


main()
