# test_overview.sh — the overview's totals hold: a daemon (daemon(3)) is
# recorded until it ends and said to have outlived `tally record`, its CPU
# counted; --process compares with that process's own CPU; the same
# experiment named twice (or a sub-experiment beside its founder) is counted
# once, with a warning; a gap between sampled and kernel CPU above 10% is
# explained (a static program exec'd by a shell: not profiled); the sampling
# error of shares is said, and a run of too few samples called so.
. "$(dirname "$0")/lib.sh"
cc_prog daemonize
cc_prog spin
cd "$T"

start=$(date +%s%N)
"$TALLY" record -o d.exp ./daemonize 0.6 "$T/done.flag" 2>/dev/null
back=$(( ($(date +%s%N) - start) / 1000000 ))
for i in $(seq 200); do test -e done.flag && break; sleep 0.05; done
sleep 0.2
"$TALLY" report d.exp --format json >d.json
check daemon_record_returns_at_once sh -c "test -e done.flag && echo record took $back ms && test $back -lt 500"
check daemon_recorded_until_it_ends python3 -c '
import json
o = json.load(open("d.json"))["overview"]
assert o["outlived"] == 1, o
assert 0.55 < o["sampled_cpu_s"] < 0.8, o
assert 85 < o["sampled_pct"] < 115, o'
check daemon_said_to_outlive_record sh -c '"$TALLY" report d.exp | grep -q "Outlived record *1 process (daemons), recorded until it ended"'
check process_compared_with_its_own_cpu sh -c '
	"$TALLY" report d.exp --process _f1 --format json | python3 -c "
import json, sys
o = json.load(sys.stdin)[\"overview\"]
assert 0.55 < o[\"kernel_cpu_compared_s\"] < 0.8 and 85 < o[\"sampled_pct\"] < 115, o"'

"$TALLY" record -o s.exp ./spin 0.2 2>/dev/null
check same_experiment_twice_counted_once sh -c '
	"$TALLY" export s.exp --format collapsed >one.txt &&
	"$TALLY" export s.exp ./s.exp/ --format collapsed >two.txt 2>err && cmp one.txt two.txt &&
	grep -q "s.exp/ is s.exp again: counted once" err && test $(wc -l <err) -eq 1'
check sub_experiment_beside_founder_counted_once sh -c '
	"$TALLY" report d.exp d.exp/_f1.exp --format json 2>err | python3 -c "
import json, sys
o = json.load(sys.stdin)[\"overview\"]
assert o[\"sampled_cpu_s\"] < 0.8, o" && grep -q "is part of d.exp" err'

if need static gap_explained_by_process; then
	cc -O2 -static -o static_spin "$PROGS/spin.c"
	"$TALLY" record -o g.exp sh -c './static_spin 0.4; ./spin 0.1' 2>/dev/null
	check gap_explained_by_process sh -c '
		"$TALLY" report g.exp >g.txt; grep "Sampled+collector" g.txt &&
		grep -q "Not sampled .*1 process not profiled: exec.d a static or set-user-ID program (.*static_spin" g.txt'
fi

# The sampling error of shares (binomial: at most 50/sqrt(n) points at
# n samples) is said, and a run of a few samples is called too short.
check sampling_error_said sh -c '
	"$TALLY" report s.exp --format json | python3 -c "
import json, math, sys
o = json.load(sys.stdin)[\"overview\"]
assert abs(o[\"sampling_error_pct\"] - 50 / math.sqrt(o[\"samples\"])) < 1e-6, o" &&
	"$TALLY" record -o few.exp -F 100 ./spin 0.05 2>/dev/null &&
	"$TALLY" report few.exp | grep -q "Sampling error .*too few samples for the shares to mean much" &&
	! "$TALLY" report s.exp | grep -q "too few samples"'
