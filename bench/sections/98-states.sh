# SPDX-License-Identifier: MIT
# 98-states.sh — the cost of `tally record --states` on a program that does
# about 100,000 context switches a second (bench/switchy.c: two threads
# passing a byte through pipes), beside tally without --states, the ring way
# of --states (as a user without the right to count in the kernel, when this
# runs as root), `perf sched record` and `perf record -e sched:sched_switch
# -g` (docs/states.md).  Wall and CPU time, interleaved rounds; the cost per
# context switch is the CPU time over the bare run's, divided by the
# switches.  `perf` records the kernel's tracepoints into its own buffers:
# it pays for no signal and no unwinding in the target, and needs root.
section "98. Thread states: --states on 100,000 context switches a second"

d=$OUT/states
rm -rf "$d" && mkdir -p "$d" && chmod 777 "$d"
${CC:-cc} -O2 -g -pthread -o "$BIN/switchy" "$BENCH/switchy.c" || { note "cannot build switchy"; exit 1; }
n=${SWITCHY_ROUNDTRIPS:-100000}
rounds=${ROUNDS:-11}
[ "$rounds" -gt 5 ] && rounds=5
"$BIN/switchy" "$n" >/dev/null 2>"$d/rate.txt"
note "load average before: $(cut -d' ' -f1-3 /proc/loadavg); bare: $(cat "$d/rate.txt"), $n round trips"

cmds=(--cmd bare "$BIN/switchy $n"
	--pre tally "rm -rf $d/t.exp" --cmd tally "$TALLY record -o $d/t.exp -- $BIN/switchy $n"
	--pre states "rm -rf $d/s.exp" --cmd states "$TALLY record --states -o $d/s.exp -- $BIN/switchy $n"
	--pre states-only "rm -rf $d/so.exp" --cmd states-only "$TALLY record -F 0 --states -o $d/so.exp -- $BIN/switchy $n")
ring=""
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ]; then
	ring=yes
	cmds+=(--pre ring "rm -rf $d/r.exp"
		--cmd ring "setpriv --reuid=65534 --regid=65534 --clear-groups $TALLY record --states -o $d/r.exp -- $BIN/switchy $n")
fi
if ! command -v perf >/dev/null; then
	pwhy="perf not installed"
elif ! perf sched record -q -o "$d/probe.data" -- /bin/true >/dev/null 2>"$d/probe.err"; then
	pwhy="perf sched record failed: $(tail -n 1 "$d/probe.err")"
else
	pwhy=""
fi
if [ -z "$pwhy" ]; then
	cmds+=(--pre perf-sched "rm -f $d/sched.data" --cmd perf-sched "perf sched record -q -o $d/sched.data -- $BIN/switchy $n"
		--pre perf-switch "rm -f $d/sw.data"
		--cmd perf-switch "perf record -q -e sched:sched_switch -g -o $d/sw.data -- $BIN/switchy $n")
fi
tb time --rounds "$rounds" --base bare --check 'roundtrips [0-9]+' --json "$d/t.json" --dir "$d/runs" "${cmds[@]}"
note "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# CPU over the bare run's, per context switch (2 per round trip), in us.
per_switch() {
	python3 - "$d/t.json" "$1" "$n" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = j.get(sys.argv[2], {})
b = j.get('bare', {})
if 'cpu_med' not in c or 'cpu_med' not in b:
    print('n/a')
else:
    print(f"{(c['cpu_med'] - b['cpu_med']) / (2 * int(sys.argv[3])) * 1e6:.2f}")
PY
}
get() { tb get "$d/t.json" "$1"; }
for c in tally states states-only ${ring:+ring} $([ -z "$pwhy" ] && echo perf-sched perf-switch); do
	note "$c: wall x$(fmt "$(get "$c.ratio_med")" 2) of bare, CPU x$(fmt "$(get "$c.cpu_ratio_med")" 2);" \
		"$(per_switch "$c") us of CPU per context switch over bare"
done
[ -n "$pwhy" ] && note "perf sched record: n/a ($pwhy)"
# What --states adds to tally, per switch: the records, the SIGTRAP at each
# resume, the unwind and the schedstat read.
extra=$(python3 -c "import sys; a, b = sys.argv[1:3]; print('n/a' if 'n/a' in (a, b) else f'{float(a) - float(b):.2f}')" \
	"$(per_switch states)" "$(per_switch tally)")
note "--states over tally: $extra us of CPU per context switch"
"$TALLY" report "$d/s.exp" --states >"$d/states.txt" 2>&1 && sed -n '/^States by thread/,/^$/p' "$d/states.txt" | sed 's/^/  /'
row "states: CPU per switch over tally (us)" "$extra" "-" \
	"perf sched: $([ -z "$pwhy" ] && per_switch perf-sched || echo "n/a ($pwhy)")"
row "states: wall ratio to bare" "$(fmt "$(get states.ratio_med)" 2)" "-" \
	"tally without --states: $(fmt "$(get tally.ratio_med)" 2)"
