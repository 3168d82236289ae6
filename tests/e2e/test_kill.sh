# test_kill.sh — experiments stay readable when the target is killed with
# SIGKILL halfway, and while it is still running; with tally record killed
# too, the overview's duration runs to the last record.
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
# tally record killed too (no end written by anyone): the overview's
# duration runs to the last record, not 0.000 s
"$TALLY" record -o k2.exp ./forever >out2 2>err2 &
rec2=$!
for i in $(seq 100); do
	"$TALLY" export k2.exp --format collapsed >live2.txt 2>/dev/null &&
		test "$(awk '{s+=$NF} END {print (s > 3e8)}' live2.txt)" = 1 && break
	sleep 0.1
done
pid2=$(exp_pid k2.exp)
kill -KILL "$rec2" "$pid2"
wait $rec2 2>/dev/null
check kill_all_duration_to_last_record sh -c '
	"$TALLY" report k2.exp --format json >k2.json; "$TALLY" report k2.exp >k2.txt;
	grep -q "^  Duration  *at least .* (to its last record" k2.txt && python3 -c "
import json; o = json.load(open(\"k2.json\"))[\"overview\"]
assert o[\"duration_s\"] >= 0.3 * 0.9 and o[\"duration_s\"] >= o[\"sampled_cpu_s\"] * 0.9, o"'
