# SPDX-License-Identifier: MIT
# 95-attach.sh — `tally record -p`: how long the target is stopped when tally
# attaches and when it detaches, beside `perf record -p` (docs/attach.md).
# The target is bench/stallprobe.c, which spins reading CLOCK_MONOTONIC and
# reports every gap over 0.2 ms: a gap during the attach (from tally's start
# to the collector's "started") or during the detach (from the end of
# --duration to tally's end) is time the process did not run.  Also shown:
# the stop of the borrowed thread as the injector timed it (attach.stopped_ns),
# the collector's stop (attach.stop_ns), the gaps of a quiet second (the
# machine's own noise), and the wall time of `tally record -p PID --duration 1`
# and of `perf record -p PID -- sleep 1`, minus the second.
section "10. Attach: the target's stop at attach and detach (tally record -p)"

d=$OUT/attach
rm -rf "$d" && mkdir -p "$d"
${CC:-cc} -O2 -o "$BIN/stallprobe" "$BENCH/stallprobe.c" || { note "cannot build stallprobe"; exit 1; }
pwhy=$(perf_why)
rounds=${ROUNDS:-11}
[ "$rounds" -gt 7 ] && rounds=7
note "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$rounds"); do
	"$BIN/stallprobe" 9 >"$d/probe$i.txt" 2>"$d/probe$i.err" & P=$!
	sleep 1
	q0=$(python3 -c 'import time; print(time.monotonic_ns())')
	sleep 1
	q1=$(python3 -c 'import time; print(time.monotonic_ns())')
	t0=$(python3 -c 'import time; print(time.monotonic_ns())')
	"$TALLY" record -p $P --duration 1 -o "$d/t$i.exp" 2>"$d/t$i.msg"
	t1=$(python3 -c 'import time; print(time.monotonic_ns())')
	p0=$t1 p1=$t1
	if [ -z "$pwhy" ]; then
		p0=$(python3 -c 'import time; print(time.monotonic_ns())')
		perf record -q -p $P -o "$d/perf$i.data" -- sleep 1 >/dev/null 2>&1
		p1=$(python3 -c 'import time; print(time.monotonic_ns())')
	fi
	wait $P
	echo "$i $q0 $q1 $t0 $t1 $p0 $p1" >>"$d/rounds.txt"
done
note "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$d" <<'PY' >"$d/summary.txt"
import statistics, sys, os
d = sys.argv[1]
def log(exp):
    kv = {}
    for line in open(os.path.join(exp, 'log.txt')):
        k, _, v = line.partition(': ')
        kv.setdefault(k, v.strip())
    return kv
def maxgap(gaps, a, b):
    return max([l for s, l in gaps if s < b and s + l > a] or [0]) / 1e6
rows = {k: [] for k in ('quiet', 'attach', 'detach', 'stopped', 'stop', 'twall', 'pwall', 'pgap')}
for line in open(os.path.join(d, 'rounds.txt')):
    i, q0, q1, t0, t1, p0, p1 = line.split()
    q0, q1, t0, t1, p0, p1 = map(int, (q0, q1, t0, t1, p0, p1))
    gaps = [tuple(map(int, l.split()[1:])) for l in open(os.path.join(d, f'probe{i}.txt'))]
    kv = log(os.path.join(d, f't{i}.exp'))
    started = int(kv['start.mono_ns'])
    end_dur = int(kv['end.mono_ns']) - int(kv.get('attach.stop_ns', 0) or 0)
    rows['quiet'].append(maxgap(gaps, q0, q1))
    rows['attach'].append(maxgap(gaps, t0, started + 20_000_000))
    rows['detach'].append(maxgap(gaps, int(kv['end.mono_ns']) - 50_000_000, t1))
    rows['stopped'].append(int(kv['attach.stopped_ns']) / 1e6)
    rows['stop'].append(int(kv.get('attach.stop_ns', 0) or 0) / 1e6)
    rows['twall'].append((t1 - t0) / 1e6 - 1000)
    if p1 > p0:
        rows['pwall'].append((p1 - p0) / 1e6 - 1000)
        rows['pgap'].append(maxgap(gaps, p0, p1))
for k, v in rows.items():
    if v:
        print(k, f'{statistics.median(v):.2f}', f'{min(v):.2f}', f'{max(v):.2f}')
PY
get() { awk -v k="$1" '$1 == k { print $'"${2:-2}"' }' "$d/summary.txt"; }
note "medians of $rounds rounds [min-max], ms:"
note "  borrowed thread stopped by the injector: $(get stopped) [$(get stopped 3)-$(get stopped 4)]"
note "  largest gap of the target during the attach: $(get attach) [$(get attach 3)-$(get attach 4)]"
note "  largest gap during the detach: $(get detach) [$(get detach 3)-$(get detach 4)];" \
	"the collector's stop took $(get stop) [$(get stop 3)-$(get stop 4)] (the target runs meanwhile)"
note "  largest gap in a quiet second (this machine's noise): $(get quiet) [$(get quiet 3)-$(get quiet 4)]"
note "  tally record -p --duration 1: $(get twall) ms over the second [$(get twall 3)-$(get twall 4)]"
if [ -z "$pwhy" ]; then
	note "  perf record -p -- sleep 1: $(get pwall) ms over the second [$(get pwall 3)-$(get pwall 4)];" \
		"largest gap of the target meanwhile $(get pgap)"
	peer="perf: gap $(get pgap) ms, +$(get pwall) ms wall"
else
	peer="perf: n/a ($pwhy)"
fi
row "attach: target stopped (ms, largest gap)" "$(get attach)" "<= 50" "$peer; quiet noise $(get quiet) ms"
row "attach: borrowed thread stopped (ms)" "$(get stopped)" "<= 50" "perf stops no thread"
row "detach: target stopped (ms, largest gap)" "$(get detach)" "<= 50" "quiet noise $(get quiet) ms"
