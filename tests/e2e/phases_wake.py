#!/usr/bin/env python3
# phases_wake.py — tally's wait for a CPU after the wake-ups of
# tests/progs/attach_phases.c's blocked phases, against the program's own
# runnable time in them (test_attach_states.sh, a static program: the
# outside mode reads the threads' schedstat to tell it from the block).
#
#   phases_wake.py PHASES_LOG WINDOW_START_NS WINDOW_END_NS WAIT_CPU_FOLDED
#
# The program's runnable time (its run_delay's growth) in its sleep, read
# and lock phases wholly inside the window, R; of those cut by the window's
# edges, E.  tally's wait.cpu in phase_sleep, phase_read and phase_lock, G,
# must be within E + 2 ms + 25% of R of R (a share of a run delay is spread
# over the blocks of one poll, 20 ms).  Skipped (exit 77) when R < 3 ms: a
# quiet machine wakes a thread at once, and nothing tells the two apart.
import sys

FUNCS = {"sleep": "phase_sleep", "read": "phase_read", "lock": "phase_lock"}


def main():
    log, w0, w1, folded = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    inside = edge = 0
    with open(log) as f:
        for line in f:
            p = line.split()
            if p[0] not in FUNCS:
                continue
            start, end, runnable = int(p[1]), int(p[2]), int(p[3])
            if start >= w0 and end <= w1:
                inside += runnable
            elif end > w0 and start < w1:
                edge += runnable
    got = 0
    with open(folded) as f:
        for line in f:
            stack, _, w = line.rstrip("\n").rpartition(" ")
            if set(stack.split(";")) & set(FUNCS.values()):
                got += int(float(w))
    slack = edge + 2e6 + 0.25 * inside
    print(f"wait.cpu in the blocked phases: tally {got / 1e9:.4f} s; program {inside / 1e9:.4f} s "
          f"runnable inside the window, {edge / 1e9:.4f} s at its edges; bound +-{slack / 1e9:.4f} s")
    if inside < 3e6:
        print("the program was woken at once (under 3 ms in all): nothing to tell apart")
        return 77
    return 0 if abs(got - inside) <= slack else 1


sys.exit(main())
