#!/usr/bin/env python3
"""sample_weights.py — the CPU weights of one function's samples, from a
speedscope export (one sample each, in time order).

usage: sample_weights.py SPEEDSCOPE.json FUNCTION MAX_NS MAX_FRACTION
Exit 1 unless at least 30 samples have FUNCTION on their stack and at most
MAX_FRACTION of them weigh over MAX_NS.
"""
import json
import sys


def main():
    path, func, max_ns, max_fraction = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    d = json.load(open(path))
    frames = [f["name"] for f in d["shared"]["frames"]]
    weights = []
    for p in d["profiles"]:
        if p.get("type") != "sampled" or p.get("unit") != "nanoseconds":
            continue
        for stack, w in zip(p["samples"], p["weights"]):
            if any(frames[i] == func for i in stack):
                weights.append(w)
    over = [w for w in weights if w > max_ns]
    print(f"{func}: {len(weights)} samples, {len(over)} over {max_ns:.0f} ns, "
          f"heaviest {max(weights, default=0):.0f} ns")
    sys.exit(0 if len(weights) >= 30 and len(over) <= max_fraction * len(weights) else 1)


if __name__ == "__main__":
    main()
