# test_vfork.sh — vfork keeps its meaning under tally: the child runs in its
# parent's memory (its write before _exit or exec is seen by the parent,
# as without tally; under the old vfork-as-fork the program exited 1), and
# its exec is still followed (a sub-experiment _f1_x1 with the program's
# samples; the program it runs named in its own log, not again in its
# parent's: that line cost each exec ~15 us); with --follow=none too, and with every tracer on.
. "$(dirname "$0")/lib.sh"
cc_prog vforky
cc_prog spin
cd "$T"

check vfork_plain_child_writes_parent_memory ./vforky ./spin 0.01
check vfork_under_tally_child_writes_parent_memory sh -c '
	"$TALLY" record -o a.exp ./vforky 2>err; rc=$?; cat err; test $rc -eq 0'
check vfork_exec_followed sh -c '
	"$TALLY" record -o b.exp ./vforky ./spin 0.2 2>/dev/null && test -d b.exp/_f1_x1.exp &&
	"$TALLY" export b.exp --format collapsed | grep -q "spin.*;main;parent;leaf_two" &&
	python3 -m tally_proc log b.exp _f1_x1 | grep -q "^argv: ./spin" && ! grep -q "^exec.vfork-child:" b.exp/log.txt'
check vfork_follow_none sh -c '
	"$TALLY" record --follow=none -o c.exp ./vforky ./spin 0.05 2>/dev/null && ! ls -d c.exp/_* 2>/dev/null'
check vfork_with_every_tracer sh -c '
	"$TALLY" record -H -s -i -o d.exp ./vforky ./spin 0.05 2>/dev/null && test -d d.exp/_f1_x1.exp'

# The collector's work in the vfork child before its exec (the new image's
# environment, the number it takes, the line in the parent's log) is the
# collector's time in the new image, not its "loading, constructors":
# logged as cpu.exec_collector_ns, taken out of cpu.entry_ns, and in its
# collector counter (the build before logs no such line).
cat >execcost.py <<'PY'
import sys, tally_proc
exp = sys.argv[1]
log = dict(l.split(": ", 1) for l in tally_proc.log_lines(exp, "_f1_x1") if ": " in l)
cost = int(log["cpu.exec_collector_ns"])
assert 0 < cost < 50000000, cost
assert int(log["cpu.entry_ns"]) + cost <= int(log["cpu.start_ns"]), log
assert tally_proc.counters(exp, "_f1_x1")[8] >= cost, tally_proc.counters(exp, "_f1_x1")
print("exec cost", cost, "ns")
PY
check vfork_exec_cost_is_collector_time sh -c '
	"$TALLY" record -o e.exp ./vforky ./spin 0.05 2>/dev/null && python3 execcost.py e.exp'
