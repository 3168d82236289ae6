# SPDX-License-Identifier: MIT
# 99-java.sh — `tally record` on a Java program (docs/java.md): the wall time
# of tests/progs/java/Shares.java (a pool of 4 workers and the main thread,
# 1:2:3 methods, JIT-compiled after a few ms) recorded at 100 Hz and at 1 kHz,
# over the bare JVM, beside:
#   - the bare JVM with -XX:+PreserveFramePointer, the flag tally adds (its
#     share of the overhead: the JIT keeps a register for frame pointers);
#   - `perf record -g -F 1000` of the JVM with -XX:+PreserveFramePointer and
#     -XX:+DumpPerfMapAtExit (perf's way with Java: frame-pointer stacks,
#     JIT code named from /tmp/perf-PID.map written at the JVM's exit);
#   - async-profiler: not measured, it is in no registry reachable here
#     (Debian 12 and npm have no package of it), and nothing else is fetched.
# The JVM starts in ~0.3 s of the ~2.5 s of CPU: the ratios include start-up.
# Under load the wall ratios spread widely; the CPU ratio (user + system of
# the whole run, median of the rounds) is given beside them.
section "java. Java: tally record on a JVM (wall time recorded / bare)"

d=$OUT/java
rm -rf "$d" && mkdir -p "$d"
note "load: $(uptime | sed 's/.*load average: //') (1, 5, 15 min; the machine is shared)"
if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
	row "java overhead, -F 1000 (wall ratio)" "n/a (no JDK: java, javac)" "<= 1.10" "-"
	return 0 2>/dev/null || exit 0
fi
if [ ! -f "$(dirname "$TALLY")/../lib/libtally-jvmti.so" ]; then
	row "java overhead, -F 1000 (wall ratio)" "n/a (libtally-jvmti.so not built)" "<= 1.10" "-"
	return 0 2>/dev/null || exit 0
fi
javac -encoding UTF-8 -d "$d" "$ROOT/tests/progs/java/Shares.java" || {
	row "java overhead, -F 1000 (wall ratio)" "n/a (javac failed)" "<= 1.10" "-"
	return 0 2>/dev/null || exit 0
}
TASKS=${BENCH_JAVA_TASKS:-8000}
JV="java -cp $d Shares $TASKS"
note "workload: $JV ($(java -version 2>&1 | head -n 1))"
why=$(perf_why)
set -- --cmd bare "$JV" \
	--cmd fp "java -XX:+PreserveFramePointer -cp $d Shares $TASKS" \
	--cmd tally100 "$TALLY record -F 100 -o $d/t100.exp -- $JV" --pre tally100 "rm -rf $d/t100.exp" \
	--cmd tally1k "$TALLY record -F 1000 -o $d/t1k.exp -- $JV" --pre tally1k "rm -rf $d/t1k.exp"
[ -z "$why" ] && set -- "$@" \
	--cmd perf "perf record -q -g -F 1000 -o $d/perf.data -- java -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -cp $d Shares $TASKS" \
	--pre perf "rm -f $d/perf.data /tmp/perf-*.map"
tb time --rounds "$ROUNDS" --base bare --check 'shares done' --json "$d/times.json" --dir "$d" "$@"
j=$d/times.json
val() {
	local r
	r=$(tb get "$j" "$1.ratio_med")
	if [ -n "$r" ]; then
		echo "$(fmt "$r") [$(fmt "$(tb get "$j" "$1.ratio_min")")-$(fmt "$(tb get "$j" "$1.ratio_max")")], cpu $(fmt "$(tb get "$j" "$1.cpu_ratio_med")")"
	else
		echo "n/a ($(tb get "$j" "$1.failed"))"
	fi
}
fp=$(val fp)
if [ -n "$why" ]; then
	peer="perf: n/a ($why)"
else
	peer="perf -g + perf map: $(val perf)"
fi
peer="$peer; -XX:+PreserveFramePointer alone: $fp; async-profiler: n/a (not in Debian or npm)"
note "last runs: tally -F 100 $(tally_samples "$d/t100.exp") samples, -F 1000 $(tally_samples "$d/t1k.exp") samples"
for e in t100 t1k; do
	"$TALLY" report "$d/$e.exp" --format json 2>/dev/null | python3 -c '
import json, sys
o = json.load(sys.stdin)["overview"]
print("  %s: %d Java samples, %.2f%% without a Java stack, %d JVM-System" % (sys.argv[1],
      o.get("java_samples", 0), o.get("java_no_stack_pct", 0), o.get("jvm_system_samples", 0)))' "$e"
done
row "java overhead, -F 100 (wall ratio)" "$(val tally100)" "<= 1.05" "$peer"
row "java overhead, -F 1000 (wall ratio)" "$(val tally1k)" "<= 1.10" "$peer"
