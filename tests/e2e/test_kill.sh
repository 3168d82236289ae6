# test_kill.sh — experiments stay readable when the target is killed with
# SIGKILL halfway, and while it is still running.
. "$(dirname "$0")/lib.sh"
cc_prog forever

cd "$T"
"$TALLY" record -o k.exp ./forever >out 2>err &
rec=$!
for i in $(seq 50); do grep -q running out 2>/dev/null && break; sleep 0.1; done
# Until the live experiment holds 0.3 s of samples (longer on a loaded machine).
for i in $(seq 100); do
	"$TALLY" export k.exp --format collapsed >live.txt 2>/dev/null &&
		test "$(awk '{s+=$NF} END {print (s > 3e8)}' live.txt)" = 1 && break
	sleep 0.1
done
check kill_live_experiment_readable sh -c 'grep -q burn live.txt'
kill_exp KILL k.exp
wait $rec
rc=$?
check kill_record_reports_128_plus_9 test $rc -eq 137
check kill_report_reads_samples_up_to_kill sh -c '
	"$TALLY" report k.exp >rep.txt && grep -q "killed by signal 9" rep.txt &&
	"$TALLY" export k.exp --format collapsed >k.txt && python3 "$E2E/profile.py" k.txt "incl burn 0.9 0.1" &&
	test $(awk "{s+=\$NF} END {print (s > 3e8)}" k.txt) -eq 1'
