# SPDX-License-Identifier: MIT
# 98-states.sh — the cost of `tally record --states` on a program that does
# about 100,000 context switches a second (bench/switchy.c: two threads
# passing a byte through pipes), beside tally without --states, the ring way
# of --states (as a user without the right to count in the kernel, when this
# runs as root), `perf sched record` and `perf record -e sched:sched_switch
# -g`, and an offcputime-style bpftrace program (docs/states.md).  Wall and CPU time, interleaved rounds; the cost per
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
# offcputime-style: a bpftrace program on the sched_switch tracepoint that
# sums each thread's time off the CPU by the user stack it left at (what
# BCC's offcputime does; its stacks are cut at the first libc frame without
# frame pointers).  Its own start (LLVM compiling the program, loading it)
# is timed on a run of one round trip, and taken out of its cost per switch.
if [ "$(id -u)" -ne 0 ]; then
	bwhy="bpftrace needs root"
elif ! command -v bpftrace >/dev/null; then
	bwhy="bpftrace not installed (scripts/install-deps.sh bench)"
elif ! timeout 60 bpftrace -q -e 'BEGIN { exit(); }' >/dev/null 2>"$d/bt.err"; then
	bwhy="bpftrace failed: $(grep -v RLIMIT_MEMLOCK "$d/bt.err" | tail -n 1)"
else
	bwhy=""
	cat >"$d/offcpu.bt" <<'BT'
tracepoint:sched:sched_switch /pid == cpid/
{
	@off[args->prev_pid] = nsecs;
	@stack[args->prev_pid] = ustack;
}
tracepoint:sched:sched_switch /@off[args->next_pid]/
{
	@us[@stack[args->next_pid]] = sum((nsecs - @off[args->next_pid]) / 1000);
	delete(@off[args->next_pid]);
}
END { clear(@off); clear(@stack); }
BT
	cmds+=(--pre offcpu "rm -f $d/offcpu.out" --cmd offcpu "bpftrace -q -o $d/offcpu.out -c '$BIN/switchy $n' $d/offcpu.bt")
fi
if [ -z "$pwhy" ]; then
	cmds+=(--pre perf-sched "rm -f $d/sched.data" --cmd perf-sched "perf sched record -q -o $d/sched.data -- $BIN/switchy $n"
		--pre perf-switch "rm -f $d/sw.data"
		--cmd perf-switch "perf record -q -e sched:sched_switch -g -o $d/sw.data -- $BIN/switchy $n")
fi
tb time --rounds "$rounds" --base bare --check 'roundtrips [0-9]+' --json "$d/t.json" --dir "$d/runs" "${cmds[@]}"
if [ -z "$bwhy" ]; then
	tb time --rounds 3 --check '(?m)^roundtrips 1$' --json "$d/bt.json" --dir "$d/bt.runs" \
		--cmd offcpu-start "bpftrace -q -o $d/offcpu1.out -c '$BIN/switchy 1' $d/offcpu.bt" >/dev/null
	bt_start=$(tb get "$d/bt.json" offcpu-start.cpu_med)
	note "bpftrace's own start (one round trip): $(fmt "$bt_start" 2) s of CPU; $(grep -c '^@us' "$d/offcpu.out") stacks off the CPU in its last output"
fi
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
for c in tally states states-only ${ring:+ring} $([ -z "$pwhy" ] && echo perf-sched perf-switch) \
	$([ -z "$bwhy" ] && echo offcpu); do
	note "$c: wall x$(fmt "$(get "$c.ratio_med")" 2) of bare, CPU x$(fmt "$(get "$c.cpu_ratio_med")" 2);" \
		"$(per_switch "$c") us of CPU per context switch over bare"
done
[ -n "$pwhy" ] && note "perf sched record: n/a ($pwhy)"
if [ -n "$bwhy" ]; then
	note "bpftrace offcputime: n/a ($bwhy)"
	bt_switch="n/a ($bwhy)"
else
	bt_switch=$(python3 -c "import sys; a, s, n = sys.argv[1:4]; print('n/a' if 'n/a' in a or not s else f'{float(a) - float(s) * 1e6 / (2 * int(n)):.2f}')" \
		"$(per_switch offcpu)" "$bt_start" "$n")
	note "offcpu less bpftrace's start: $bt_switch us of CPU per context switch over bare"
fi
# What --states adds to tally, per switch: the records, the SIGTRAP at each
# resume, the unwind and the schedstat read.
extra=$(python3 -c "import sys; a, b = sys.argv[1:3]; print('n/a' if 'n/a' in (a, b) else f'{float(a) - float(b):.2f}')" \
	"$(per_switch states)" "$(per_switch tally)")
note "--states over tally: $extra us of CPU per context switch"
"$TALLY" report "$d/s.exp" --states >"$d/states.txt" 2>&1 && sed -n '/^States by thread/,/^$/p' "$d/states.txt" | sed 's/^/  /'
row "states: CPU per switch over tally (us)" "$extra" "-" \
	"perf sched: $([ -z "$pwhy" ] && per_switch perf-sched || echo "n/a ($pwhy)")"
row "states: CPU per switch over bare (us)" "$(per_switch states)" "-" "bpftrace offcputime: $bt_switch"
row "states: wall ratio to bare" "$(fmt "$(get states.ratio_med)" 2)" "-" \
	"tally without --states: $(fmt "$(get tally.ratio_med)" 2)"
