# test_observer.sh — measuring without disturbing (issue 7): shares that do
# not move with the sampling rate or with CPU-bound processes beside the
# program (also on always-new stacks, where a collector whose cost grows
# with a stack's novelty inflates them); sampled + collector CPU within 2%
# of the kernel's, past what ran before the collector and each thread's
# last period (fidelity.py), on 1 and 4 threads and on threads that block
# every signal; a thread that cannot be sampled is counted and named; thread
# stacks start at clone3.
. "$(dirname "$0")/lib.sh"
cc_prog recursion
cc_prog newstacks
cc_prog spin
cc_prog threads4 -pthread
cc_prog sigblock -pthread

cd "$T"

# accounted EXP: the kernel's CPU count is sampled + collector + what ran
# before the collector + each thread's tail after its last sample, within
# 2% (the signals' delivery): fidelity.py measures each part.
accounted() {
	python3 "$E2E/fidelity.py" "$1"
}

for load in 0 1; do
	burner=
	if [ $load = 1 ]; then
		sh -c 'while :; do :; done' &
		burner=$!
	fi
	for hz in 100 1000 4000; do
		sfx=${hz}hz$( [ $load = 1 ] && echo _loaded)
		# At 100 Hz, twice as long (phases of ~240 ms): a sample's weight
		# at a phase boundary may be the neighbour's, ten boundaries of
		# 10 ms samples in 1.2 s once moved fib to 0.4685 beside a busy loop.
		scale=1; [ $hz = 100 ] && scale=2
		if [ $load = 1 ]; then
			# Loaded, the two programs run side by side with the busy
			# loop: three CPU-bound processes, more than this machine's
			# two CPUs (the loop alone left one CPU free for the
			# program), in the time of the longer of the two.
			"$TALLY" record -F $hz -o new$sfx.exp ./newstacks 2>/dev/null & new=$!
			"$TALLY" record -F $hz -o rec$sfx.exp ./recursion $scale 2>/dev/null
			wait $new
		else
			"$TALLY" record -F $hz -o rec$sfx.exp ./recursion $scale 2>/dev/null
			"$TALLY" record -F $hz -o new$sfx.exp ./newstacks 2>/dev/null
		fi
		"$TALLY" export rec$sfx.exp --format collapsed >rec$sfx.txt
		# fib and the cycle are phases of ~120 ms: their shares hold at any
		# rate; ping against pong is a coin toss per sample (levels of a few
		# us), within 0.03 only with thousands of samples.
		if [ $hz = 4000 ]; then pp="'excl ping 0.25 0.03' 'excl pong 0.25 0.03'"; else pp=; fi
		eval check rate_invariant_recursion_$sfx shares rec$sfx.txt \
			"'excl fib 0.5 0.03'" "'incl ping 0.5 0.03'" "$pp"
		"$TALLY" export new$sfx.exp --format collapsed >new$sfx.txt
		check rate_invariant_new_stacks_$sfx shares new$sfx.txt 'incl tree 0.5 0.03' 'path flat;spin[inlined] 0.5 0.03'
	done
	[ -n "$burner" ] && kill "$burner"
done
check collector_cost_reported sh -c '
	"$TALLY" report new1000hz.exp --format json | python3 -c "
import json, sys
o = json.load(sys.stdin)[\"overview\"]
print(o)
assert 0 < o[\"collector_cpu_s\"] < 0.05 * o[\"kernel_cpu_s\"]
assert 0 < o[\"handler_p50_us\"] <= o[\"handler_p99_us\"] <= o[\"handler_max_us\"]
# a handler run may take no sample: one that interrupted our own handler
# (collector/col_sample.c, own_handler_frames), its CPU in the next sample
assert o[\"samples\"] <= o[\"handler_runs\"] <= o[\"samples\"] + max(2, o[\"samples\"] // 100)"'

# One thread: recursion at the default rate, recorded above.
check fidelity_one_thread accounted rec1000hz.exp
"$TALLY" record -o four.exp ./threads4 2>/dev/null
check fidelity_four_threads accounted four.exp
"$TALLY" record -o blocked.exp ./sigblock 2 2>/dev/null
check fidelity_threads_blocking_signals accounted blocked.exp
"$TALLY" export blocked.exp --format collapsed >blocked.txt
check threads_blocking_signals_sampled shares blocked.txt \
	'incl w_pthread 0.25 0.03' 'incl w_procmask 0.25 0.03' 'incl w_wait 0.25 0.03' 'incl w_inherit 0.25 0.03'
check thread_stacks_start_at_clone3 shares blocked.txt 'path clone3;start_thread;w_inherit 0.25 0.03'

"$TALLY" record -o left.exp ./sigblock exit 2 2>/dev/null
check thread_running_at_exit_has_its_records sh -c '
	"$TALLY" report left.exp --threads --format csv >left.csv && python3 -c "
import csv
rows = {r[\"start\"]: r for r in csv.DictReader(open(\"left.csv\"))}
w = rows[\"w_inherit\"]
print(w)
assert float(w[\"kernel_cpu\"]) > 0.05 and int(w[\"handler_p99_ns\"]) > 0"'
check fidelity_thread_running_at_exit accounted left.exp

"$TALLY" record -o raw.exp ./sigblock raw 2>raw.err
check unsampled_thread_named_at_end_of_record sh -c 'cat raw.err; grep "could not be sampled" raw.err | grep -q "w_raw ([0-9]* ms of CPU unsampled; it blocked the sampling signal"'
check unsampled_thread_in_overview sh -c '
	"$TALLY" report raw.exp >raw.txt && grep -q "Unsampled thread .* w_raw: " raw.txt &&
	grep -q "Unsampled threads  *1 (threads.unsampled" raw.txt'
check unsampled_thread_said_once sh -c 'test $(grep -c "sampl" raw.err) = 1'
# Still running when the process ends: named by the end of the process.
"$TALLY" record -o rawexit.exp ./sigblock raw exit 2>rawexit.err
check unsampled_thread_running_at_exit_named sh -c '
	grep "could not be sampled" rawexit.err | grep -q w_raw &&
	"$TALLY" report rawexit.exp | grep -q "Unsampled thread .* w_raw: .*(it blocks the sampling signal)"'
# At 20 kHz a signal often meets a thread in its set-up, before it blocks
# the signal (deferred, then dropped: the thread's own start): that said
# nothing of the 0.3 s after, and w_raw went unnamed in 5 of 10 runs (at
# 1 kHz, now and then).  Named in 25 of 25 runs beside three spinning
# shells; a clean root under two suites' load once left one of three runs
# to the count-only line (cause not found): at least two of three.
check unsampled_thread_named_at_high_rate sh -c '
	named=0
	for i in 1 2 3; do
		rm -rf rawfast.exp && "$TALLY" record -F 20000 -o rawfast.exp ./sigblock raw exit 2>rawfast.err
		if grep "could not be sampled" rawfast.err | grep -q w_raw; then named=$((named + 1)); else cat rawfast.err; fi
	done
	echo "named in $named of 3 runs"; test $named -ge 2'
# Short programs that block nothing are not named, at 20 kHz (they were, at
# 0 to 1 ms "unsampled": their last slice) nor at the default rate.
check short_programs_not_said_unsampled sh -c '
	for hz in 1000 20000; do
		for p in "wc -c ./sigblock" "sh -c true" "./spin 0.01"; do
			"$TALLY" record -F $hz -o short$hz.exp $p >/dev/null 2>short.err; cat short.err
			grep -q "could not be sampled" short.err && exit 1
			rm -rf short$hz.exp
		done
	done; true'

# A rate above the cap is lowered, with one line saying why; the run ends.
"$TALLY" record -F 100000 -o capped.exp ./spin 0.3 2>capped.err
check rate_above_cap_lowered_with_one_line sh -c '
	test $(grep -c "lowered to 20000 Hz" capped.err) = 1 && grep -q "^clock.hz: 20000$" capped.exp/log.txt'
