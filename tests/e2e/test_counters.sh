# test_counters.sh — counter profiling (tally record -c EVENT[/PERIOD]):
# page faults of a program touching N fresh pages attributed to the touching
# function; several counters at once; the one-line refusal of a hardware
# event where the machine has no PMU, before the target starts; bad -c
# arguments.
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog faulty
cc_prog states_mutex -pthread
INCL="python3 $E2E/incl.py"
N=20000

"$TALLY" record -c page-faults -o faults.exp ./faulty $N >/dev/null 2>&1
"$TALLY" export faults.exp --format collapsed --metric page-faults >pf.txt
check counters_page_faults_at_the_touching_function sh -c "
	got=\$($INCL pf.txt touch_pages); echo touch_pages \$got of $N
	test \$((got * 100)) -ge \$(($N * 95)) && test \$got -le \$(($N + $N / 50))"
check counters_page_faults_few_elsewhere sh -c "test \$($INCL pf.txt other_work) -le 20"
check counters_in_the_overview sh -c "\"\$TALLY\" report faults.exp >ov.txt && grep -q '^Counters' ov.txt &&
	grep -Eq '^  page-faults +[0-9]+' ov.txt"
check counters_definition_logged grep -q '^counter: page-faults' faults.exp/log.txt

"$TALLY" record -c minor-faults/10 -o minor.exp ./faulty $N >/dev/null 2>&1
"$TALLY" export minor.exp --format collapsed --metric minor-faults >mf.txt
# Every 10th fault is a sample of 10 (read from the counter): the total is exact.
check counters_period_weighs_events sh -c "
	got=\$($INCL mf.txt touch_pages); echo touch_pages \$got of $N
	test \$((got * 100)) -ge \$(($N * 95)) && test \$got -le \$(($N + $N / 50)) &&
	test \$(grep -c . mf.txt) -ge 1"

# Two counters at once: faults and context switches (root counts the latter
# in the kernel; a user at perf_event_paranoid 2 counts none).
"$TALLY" record -c page-faults -c context-switches -o two.exp ./states_mutex 6 5 >/dev/null 2>&1
"$TALLY" export two.exp --format collapsed --metric context-switches >cs.txt
if [ "$(id -u)" -eq 0 ]; then
	check counters_context_switches_at_blocking_calls sh -c "
		test \$($INCL cs.txt take_lock) -ge 2 && test \$($INCL cs.txt nap) -ge 10"
else
	skip counters_context_switches_at_blocking_calls "context switches count in the kernel: root only"
fi
check counters_two_metrics sh -c "\"\$TALLY\" report two.exp --metric page-faults,context-switches >two.txt &&
	grep -q 'Excl. page-faults' two.txt && grep -q 'Excl. context-switches' two.txt"

# A hardware event without a PMU: one line, exit 2, before the target runs.
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	skip counters_cycles_refused_without_pmu "this machine has a CPU PMU"
else
	"$TALLY" record -c cycles -o cyc.exp -- sh -c "touch $T/ran" >cyc.out 2>cyc.err
	rc=$?
	check counters_cycles_refused_without_pmu sh -c "cat cyc.err; test $rc -eq 2 &&
		test \$(wc -l <cyc.err) -eq 1 && grep -q 'no hardware performance counters' cyc.err &&
		grep -q 'page-faults' cyc.err && grep -q 'cycles' cyc.err"
	check counters_cycles_target_never_ran sh -c "test ! -e $T/ran && test ! -e cyc.exp"
fi
"$TALLY" record -c bogus -- true >/dev/null 2>bogus.err
rc=$?
check counters_unknown_event_refused sh -c "cat bogus.err; test $rc -eq 64 && test \$(wc -l <bogus.err) -eq 1 &&
	grep -q \"unknown event 'bogus'\" bogus.err && grep -q 'page-faults' bogus.err"
"$TALLY" record -c page-faults/0 -- true >/dev/null 2>period.err
rc=$?
check counters_bad_period_refused sh -c "cat period.err; test $rc -eq 64 && grep -q 'period' period.err"
check counters_metric_by_event_name sh -c "\"\$TALLY\" report faults.exp --metric page-faults,faults >m.txt 2>&1 &&
	grep -q 'Excl. page-faults' m.txt"
