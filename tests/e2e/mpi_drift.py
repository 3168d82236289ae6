"""mpi_drift.py — a rank's clock drift applied on the job's time axis.

Usage: mpi_drift.py BASE.exp DRIFT.exp RANK
BASE and DRIFT are copies of one recorded job in which RANK's log says its
clock kept the same offset from rank 0's (BASE) or gained D ns more by the
end measurement (DRIFT: mpi.clock.end.offset_ns raised by D, far beyond the
round trips' errors).  docs/mpi.md "Time across hosts": between the two
measurements the offset is interpolated, before the first and after the
second it is held.  So on the chrome export's axis (microseconds) each of
RANK's events moves by D * clamp((t - t_at) / L, 0, 1), with L the time
between the two measurements, one t_at for every event, t the time the
model aligned: an MPI call's start (the interval moves whole, its end is
not checked) or a message's end (stack slices, laid out from several
samples, may merge differently once moved: not compared); every other rank's
events do not move; and the message matching counts a receive that ends
before its send started exactly where the moved times say so.
Run by test_mpi.sh in the job's directory; the exports are made by it.
"""
import json
import sys


def log(exp, rank):
    with open("%s/rank%d.exp/log.txt" % (exp, rank)) as f:
        return dict(l.rstrip("\n").split(": ", 1) for l in f if ": " in l)


def events(path):
    with open(path) as f:
        ev = json.load(f)["traceEvents"]
    return ev, [e for e in ev if "ts" in e and e.get("ph") not in ("M", "X")]


def main():
    base, drift, rank = sys.argv[1], sys.argv[2], int(sys.argv[3])
    lb, ld = log(base, rank), log(drift, rank)
    d_us = (int(ld["mpi.clock.end.offset_ns"]) - int(lb["mpi.clock.end.offset_ns"])) / 1000.0
    l_us = (int(lb["mpi.clock.end.at_ns"]) - int(lb["mpi.clock.at_ns"])) / 1000.0
    assert d_us > 0 and l_us > 0, (d_us, l_us)
    with open(base + ".messages.json") as f:
        base_order = json.load(f)["matching"]["clock_order_ns"]
    with open(drift + ".messages.json") as f:
        matching = json.load(f)["matching"]
    # rounding, and the clocks' moves within their errors (message order),
    # which may differ between the copies
    tol = 2 + (abs(base_order) + abs(matching["clock_order_ns"])) / 1000.0
    meta, a = events(base + ".trace.json")
    b = events(drift + ".trace.json")[1]
    assert len(a) == len(b) > 0, (len(a), len(b))
    pid = {e["pid"] for e in meta if e.get("name") == "process_name" and
           e["args"]["name"].endswith(" rank %d]" % rank)}
    assert len(pid) == 1, pid
    pid = pid.pop()
    def ruled(e):
        return e.get("ph") != "e"

    t_at = []
    for x, y in zip(a, b):
        assert x.get("name") == y.get("name") and x["pid"] == y["pid"], (x, y)
        s = y["ts"] - x["ts"]
        if x["pid"] != pid:
            assert abs(s) <= tol, ("another rank moved", x, y)
        elif tol < s < d_us - tol and ruled(x):
            t_at.append(x["ts"] - s * l_us / d_us)
    assert len(t_at) >= 4, ("too few events between the measurements", len(t_at))
    t_at.sort()
    mid = t_at[len(t_at) // 2]
    assert t_at[-1] - t_at[0] <= 2 * tol * l_us / d_us + 2, ("not one line", t_at[0], t_at[-1])

    def moved(e):
        if e["pid"] != pid:
            return e["ts"]
        return e["ts"] + d_us * min(max((e["ts"] - mid) / l_us, 0.0), 1.0)

    for x, y in zip(a, b):
        if not ruled(x):
            assert x["pid"] != pid or -tol <= y["ts"] - x["ts"] <= d_us + tol, ("off the drift", x, y)
        else:
            assert abs(moved(x) - y["ts"]) <= tol + 1, ("off the rule", x, y, moved(x))
    sends = {e["id"]: e for e in a if e.get("ph") == "s"}
    recvs = {e["id"]: e for e in a if e.get("ph") == "f"}
    gap = [moved(recvs[k]) - moved(sends[k]) for k in sends if k in recvs]
    least, most = sum(1 for g in gap if g < -tol), sum(1 for g in gap if g < tol)
    print("D %.0f us over L %.0f us; %d events on the line; received before sent %d (predicted %d-%d)"
          % (d_us, l_us, len(t_at), matching["received_before_sent"], least, most))
    assert matching["matched"] == len(sends) and least <= matching["received_before_sent"] <= most, matching


main()
