# test_java.sh — Java programs through tally's JVMTI agent (docs/java.md):
# method shares of a workload of known costs (1:2:3, one method recursive, a
# pool of 4 workers) in the report and the collapsed export, stacks as the
# program calls, few samples without a Java stack, JVM threads kept and
# named; one stack through interpreted, compiled and native (JNI) code; a
# method deoptimized and compiled again under one name; the three views;
# Java source lines in annotate and --lines; the program's own JVM options
# kept; a C program that creates its JVM (embed.c); -j off.  Five JVM runs,
# about 25 s under load.
. "$(dirname "$0")/lib.sh"
LIB=$(dirname "$TALLY")/../lib
if ! command -v javac >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
	skip java "no JDK (java, javac): scripts/install-deps.sh test installs openjdk-17-jdk-headless"
	exit 0
fi
if [ ! -f "$LIB/libtally-jvmti.so" ]; then
	skip java "tally was built without jvmti.h: no libtally-jvmti.so (make says it skipped it)"
	exit 0
fi
JDK=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
cd "$T"
cp "$PROGS"/java/* .
javac -encoding UTF-8 -d . Shares.java Mixed.java Churn.java Vec.java Inl.java
cc -O2 -g -shared -fPIC -I"$JDK/include" -I"$JDK/include/linux" -o libmixed.so mixed_jni.c

# ---- the workload of known costs -------------------------------------------
JAVA_TOOL_OPTIONS=-Dtally.test=kept "$TALLY" record -o shares.exp java -cp . Shares \
	>shares.out 2>shares.err
"$TALLY" export shares.exp --format collapsed >shares.txt
check java_method_shares_1_2_3 shares shares.txt \
	'within Shares.task incl Shares.one 0.1667 0.03' \
	'within Shares.task incl Shares.two 0.3333 0.03' \
	'within Shares.task incl Shares.three 0.5 0.03' \
	'within Shares.task incl Shares.spin 1.0 0.01' \
	'incl Shares.task 0.8 0.2'
check java_stacks_as_written shares shares.txt \
	'within Shares.task path Shares.task;Shares.one;Shares.spin 0.1667 0.03' \
	'within Shares.task path Shares.task;Shares.two;Shares.spin 0.3333 0.03' \
	'within Shares.task path Shares.task;Shares.three;Shares.three;Shares.three;Shares.spin 0.1667 0.03' \
	'within Shares.task path Shares.main;Shares.task 0.2 0.05' \
	'within Shares.task path java.lang.Thread.run;java.util.concurrent.ThreadPoolExecutor$Worker.run 0.8 0.05'
# Nothing but the program's frames above its methods: no JVM function, no
# interpreter, no thread start in the user view.
check java_user_view_has_no_jvm_frames sh -c '! grep -E "JavaCalls|call_stub|Interpreter|start_thread|thread_native_entry|<Unknown>" shares.txt'
"$TALLY" report shares.exp --format csv --functions >shares.csv
check java_report_shares_as_export python3 -c '
import csv, sys
rows = {r["name"].split("(")[0]: r for r in csv.DictReader(open("shares.csv"))}
task = float(rows["Shares.task"]["incl_cpu"])
want = {"Shares.one": 1 / 6, "Shares.two": 2 / 6, "Shares.three": 3 / 6}
got = {k: float(rows[k]["incl_cpu"]) / task for k in want}
print(got)
sys.exit(0 if all(abs(got[k] - want[k]) <= 0.03 for k in want) else 1)'
"$TALLY" report shares.exp --format json >shares.json
check java_no_java_stack_under_2pct python3 -c '
import json, sys
o = json.load(open("shares.json"))["overview"]
print("samples", o["java_samples"], "without a Java stack", o["java_no_stack"], o["java_no_stack_pct"], "%")
sys.exit(0 if o["java_samples"] > 500 and o["java_no_stack_pct"] < 2 else 1)'
check java_overview_says_how_many sh -c '"$TALLY" report shares.exp | grep -E "Java samples +[0-9]+ of Java threads: [0-9]+ without a Java stack"'
check java_jvm_threads_kept_and_named sh -c '
	"$TALLY" report shares.exp --threads >threads.txt &&
	grep -q "pool-1-thread-4" threads.txt && grep -q " main " threads.txt &&
	grep -Eq "C[12] CompilerThre|GC Thread" threads.txt &&
	grep -q "<JVM-System>" shares.txt'
check java_users_own_options_kept sh -c 'grep -q "Picked up JAVA_TOOL_OPTIONS: -Dtally.test=kept" shares.err &&
	grep -q "shares done" shares.out && grep -q "^java.agent: " shares.exp/log.txt'

# The loop's body line holds nearly all of spin's time, read from the source.
check java_annotate_shows_source_lines sh -c '
	"$TALLY" annotate shares.exp Shares.spin --format csv >spin.csv 2>/dev/null &&
	python3 -c "
import csv, sys
rows = list(csv.DictReader(open(\"spin.csv\")))
tot = sum(float(r[\"excl_cpu\"]) for r in rows)
body = [r for r in rows if \"6364136223846793005L\" in r[\"text\"]]
print(len(rows), \"lines\", body and body[0][\"excl_cpu\"], \"of\", tot)
sys.exit(0 if body and int(body[0][\"line\"]) == 20 and float(body[0][\"excl_cpu\"]) >= 0.8 * tot else 1)"'

# --lines: a Java frame is its source line (Shares.java:20, the loop's body,
# holds nearly all of spin's time, with its text); the function table's file
# column is the class's source file; --pcs leaves the Java frames out (they
# are lines, not instructions) and says so.
check java_hot_lines_and_files sh -c '
	"$TALLY" report shares.exp --lines --format csv >lines.csv &&
	"$TALLY" report shares.exp --functions --columns name,file --format csv >files.csv &&
	"$TALLY" report shares.exp --pcs >pcs.txt && grep -q "Java methods. frames are source lines" pcs.txt &&
	! grep -q "Shares\.spin" pcs.txt &&
	python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(open(\"lines.csv\")) if r[\"function\"].startswith(\"Shares.spin(\")]
tot = sum(float(r[\"excl_cpu\"]) for r in rows)
body = [r for r in rows if r[\"location\"] == \"Shares.java:20\"]
files = {r[\"name\"]: r[\"file\"] for r in csv.DictReader(open(\"files.csv\"))}
print(len(rows), \"lines of spin\", body and body[0][\"excl_cpu\"], \"of\", tot, files.get(\"Shares.spin(long, long)\"))
sys.exit(0 if body and \"6364136223846793005L\" in body[0][\"text\"] and float(body[0][\"excl_cpu\"]) >= 0.8 * tot > 0
	 and files.get(\"Shares.spin(long, long)\") == \"Shares.java\" else 1)"'

# tally html: the hot Java method's source lines on the page; none for the
# JDK's own classes, whose sources are not at hand.
# (the page's data is packed: tests/pylib/tally_page.py unpacks it)
check java_html_shows_method_source sh -c '
	"$TALLY" html shares.exp -o shares.html &&
	python3 -c "import sys; from tally_page import page_json; print(page_json(open(sys.argv[1]).read()))" \
		shares.html >shares.page &&
	grep -q "\"name\":\"Shares.java: Shares.spin(long, long)\"" shares.page &&
	grep -q "6364136223846793005L" shares.page && ! grep -q "\"name\":\"java/util/" shares.page'

# ---- samples AsyncGetCallTrace cannot walk -------------------------------------
# In the JVM's runtime called from compiled code (Vec.sum's array allocation)
# the JVM gives no Java stack (9% of the Java samples here before); the
# compiled methods in the machine frames give it, cut at the first
# interpreted frame: <no Java callstack recorded> stays under 1% (issue 21),
# within two standard errors of the sample (at load 11 one run read 1.74%
# of 344 samples, 6 samples: the bound there is 2.07%).
# 3 s: at load 10-14, 2 s gave as few as 4 samples in the allocation path.
"$TALLY" record -o vec.exp java -cp . Vec 3 >vec.out 2>&1
"$TALLY" export vec.exp --format collapsed >vec.txt
check java_no_java_stack_under_1pct_vectorised sh -c '
	"$TALLY" report vec.exp --format json | python3 -c "
import json, sys
o = json.load(sys.stdin)[\"overview\"]
print(\"samples\", o[\"java_samples\"], \"no stack\", o[\"java_no_stack_pct\"], \"% recovered\", o.get(\"java_recovered\", 0))
n = o[\"java_samples\"]
bound = 1 + 2 * 100 * (0.01 * 0.99 / max(n, 1)) ** 0.5
print(\"bound\", round(bound, 2), \"%\")
sys.exit(0 if n > 100 and o[\"java_no_stack_pct\"] <= bound else 1)"'
# A recovered stack is the cut, then Java methods only (no JVM frame).
check java_recovered_stacks_are_java sh -c '
	grep "^<Truncated-stack>;" vec.txt |
		grep -E "JavaCalls|call_stub|Interpreter|thread_native_entry|Runtime|Allocator|memset|<Unknown>|<no Java" && exit 1
	grep -q "^vec done" vec.out'

# A recovered compiled frame has its line (issue 21): the JIT_CODE record's
# line table puts the return address of Vec.sum's call into the JVM's
# allocation (machine frames Vec.sum [compiled #N];_new_array_Java or
# new_type_array, whether the JVM walked the stack or not) at line 17
# (int[] x = new int[8192]): it holds them all (before, the recovered ones
# had no line: 1 of 57 there).
cat >vec_lines.py <<'PY'
import json, sys
# vec_lines.py MACHINE LINES [MACHINE LINES]...: exit 3 when fewer than 5
# allocation samples were taken in all (too few to judge).
alloc = at17 = 0
args = sys.argv[1:]
for machine, lines in zip(args[0::2], args[1::2]):
    for l in open(machine):
        stack, n = l.rsplit(" ", 1)
        f = stack.split(";")
        if any(a.startswith("Vec.sum(int) [compiled") and b in ("_new_array_Java", "new_type_array Runtime1 stub")
               for a, b in zip(f, f[1:])):
            alloc += int(n)
    rows = json.load(open(lines))["lines"]
    at17 += sum(r["excl_samples"] for r in rows if r["location"] == "Vec.java:17" and r["function"] == "Vec.sum(int)")
print("Vec.sum allocation samples", alloc, "at Vec.java:17", at17)
if alloc < 5:
    sys.exit(3)
assert at17 >= 0.9 * alloc, (alloc, at17)
PY
# Under load (15) the 3 s run took as few as 3 samples in the allocation
# path: then a second, longer run adds its samples before judging
# (vec_machine_lines EXP: its machine stacks and line table).
check java_recovered_frames_have_lines sh -c '
	vec_machine_lines() { "$TALLY" export "$1.exp" --view machine --format collapsed --metric samples >"$1.machine" &&
		"$TALLY" report "$1.exp" -q --lines --limit 0 --format json --metric samples >"$1.lines"; }
	vec_machine_lines vec && python3 vec_lines.py vec.machine vec.lines && exit 0
	[ $? = 3 ] || exit 1
	echo "too few: a 6 s run as well"
	"$TALLY" record -o vec6.exp java -cp . Vec 6 >vec6.out 2>&1 && vec_machine_lines vec6 &&
		python3 vec_lines.py vec.machine vec.lines vec6.machine vec6.lines'
# The interpreted caller above a recovered stack (issue 21): Vec.main runs
# in the interpreter; the collector reads its Method* from its frame and
# the stack is whole, Vec.main;Vec.sum (before: 59 of 613 Java samples,
# 6.6% of the CPU, were <Truncated-stack>;Vec.sum).  At most a tenth of
# the recovered samples may still be cut.
# Under load (24, in a clean root) the 3 s run recovered 4 samples: the
# checks below then judge the 6 s run (made above, or here) instead.
vec_recovered() { "$TALLY" report "$1.exp" --format json >"$1.json" && python3 -c "
import json, sys
sys.exit(0 if json.load(open(\"$1.json\"))[\"overview\"].get(\"java_recovered\", 0) >= 5 else 3)"; }
vr=vec
if ! vec_recovered vec; then
	echo "too few recovered samples in vec.exp: the 6 s run is judged"
	[ -d vec6.exp ] || "$TALLY" record -o vec6.exp java -cp . Vec 6 >vec6.out 2>&1
	vr=vec6
	vec_recovered vec6 || true
fi
export vr
check java_recovered_interpreted_caller sh -c '
	"$TALLY" export $vr.exp --format collapsed --metric samples >vec.cut && python3 -c "
import json
rec = json.load(open(\"$vr.json\"))[\"overview\"].get(\"java_recovered\", 0)
cut = sum(int(l.rsplit(\" \", 1)[1]) for l in open(\"vec.cut\") if l.startswith(\"<Truncated-stack>\"))
whole = sum(int(l.rsplit(\" \", 1)[1]) for l in open(\"vec.cut\") if l.startswith(\"Vec.main(java.lang.String[]);Vec.sum(int) \"))
print(\"recovered\", rec, \"cut\", cut, \"Vec.main;Vec.sum\", whole)
assert rec >= 5 and cut <= 0.1 * rec and whole >= rec * 0.9, (rec, cut, whole)"'
# ... and at its line (issue 21): the frame's bytecode pointer, saved when
# it called, less its method's bytecodes (their place from the JVM's
# VMStructs) is the index, whose line is Vec.java:28 (the loop calling
# sum).  Before, the recovered samples' Vec.main had no line (16 of 17 at
# line 0 in annotate's inclusive column).
check java_recovered_interpreted_caller_has_its_line sh -c '
	"$TALLY" annotate $vr.exp "Vec.main" --metric samples --format json >vec.main.json && python3 -c "
import json
rec = json.load(open(\"$vr.json\"))[\"overview\"].get(\"java_recovered\", 0)
incl = {r[\"line\"]: r[\"incl_samples\"] for r in json.load(open(\"vec.main.json\"))[\"source\"]}
print(\"recovered\", rec, \"Vec.main inclusive by line\", {k: v for k, v in incl.items() if v})
assert rec >= 5 and incl.get(0, 0) <= 0.1 * rec and incl.get(28, 0) >= rec, (rec, incl)"'

# What the JIT inlined into a recovered compiled frame (issue 21): Inl.fill's
# allocation is in Inl.fresh, which C2 inlines; the samples in the JVM's
# allocation path (machine frames: a [compiled] method calling
# _new_array_Java or the C1 stub) are recovered from fill's code and, from
# the JIT_INLINE records (JVMTI's compile_info), read Inl.fill;Inl.fresh at
# fresh's line (Inl.java:7), not fill's call of it (Inl.java:12: 27 of 33
# such samples on the build before).  Only the compiled fill's samples at
# its call count against it (the expert view's "Inl.fill(int) [compiled]"):
# the interpreter's at the invoke bytecode are right there, and a loaded
# machine leaves fill interpreted longer (3 of 20 runs failed when all of
# fill's counted: 8 of 50, 5 of 5, 6 of 17, every one interpreted).
"$TALLY" record -o inl.exp java -cp . Inl 2 >inl.out 2>&1
check java_recovered_inlined_frames sh -c '
	"$TALLY" export inl.exp --view machine --format collapsed --metric samples >inl.machine &&
	"$TALLY" report inl.exp -q --lines --limit 0 --format json --metric samples >inl.lines &&
	"$TALLY" annotate inl.exp "Inl.fill(int) [compiled]" --view expert --metric samples --format json >inl.fill &&
	python3 -c "
import json
alloc = 0
for l in open(\"inl.machine\"):
    stack, n = l.rsplit(\" \", 1)
    f = stack.split(\";\")
    if any(\"[compiled\" in a and b in (\"_new_array_Java\", \"new_type_array Runtime1 stub\") for a, b in zip(f, f[1:])):
        alloc += int(n)
rows = json.load(open(\"inl.lines\"))[\"lines\"]
fresh = sum(r[\"excl_samples\"] for r in rows if r[\"location\"] == \"Inl.java:7\" and r[\"function\"] == \"Inl.fresh(int)\")
call = sum(r[\"excl_samples\"] for r in json.load(open(\"inl.fill\"))[\"source\"] if r[\"line\"] == 12)
print(\"allocation samples\", alloc, \"at the call in compiled fill\", call, \"in fresh\", fresh)
assert alloc >= 5 and call <= 0.1 * alloc + 2 and fresh >= alloc, (alloc, call, fresh)
" && grep -q "^inl done" inl.out'

# ---- interpreted, compiled, native; deoptimization --------------------------
"$TALLY" record -o mixed.exp java -cp . -Djava.library.path=. -XX:CompileCommand=quiet \
	-XX:CompileCommand=exclude,Mixed::main -XX:+PrintCompilation Mixed >mixed.out 2>mixed.err
"$TALLY" export mixed.exp --format collapsed >mixed.txt
"$TALLY" export mixed.exp --view expert --format collapsed >mixed.expert
"$TALLY" export mixed.exp --view machine --format collapsed >mixed.machine
check java_interpreted_compiled_native_in_one_stack sh -c '
	grep -F "Mixed.main(java.lang.String[]) [interpreted];Mixed.outer(int) [compiled];Mixed.nat(int) [" mixed.expert |
	grep -F "];Java_Mixed_nat;c_spin "'
check java_native_calls_back_into_java shares mixed.txt \
	'path Mixed.main;Mixed.outer;Mixed.nat;Java_Mixed_nat;c_spin 0.25 0.2' \
	'path Mixed.main;Mixed.outer;Mixed.nat;Java_Mixed_nat;Mixed.back;Mixed.spin 0.25 0.2'
# The JVM said it deoptimized sum's C2 code; the user view still has one sum.
check java_deoptimized_method_keeps_one_name sh -c '
	grep -Eq " 4 +Mixed::sum .*made not entrant" mixed.out &&
	"$TALLY" report mixed.exp --functions --limit 0 >mixed.fn &&
	test "$(grep -c "Mixed.sum(Mixed\$Shape, long)" mixed.fn)" -eq 1 &&
	"$TALLY" report mixed.exp --view machine --functions --limit 0 >mixed.mfn &&
	test "$(grep -Ec "Mixed.sum\(Mixed\\\$Shape, long\) \[compiled #[0-9]+\]" mixed.mfn)" -ge 2'
check java_machine_view_shows_the_jvm sh -c '
	grep -q ";call_stub;Interpreter;" mixed.machine && grep -q "ThreadJavaMain;JavaMain;" mixed.machine &&
	! grep -q "Mixed.main(java.lang.String\[\])" mixed.machine'
check java_expert_view_shows_jvm_under_java sh -c '
	grep -F "Java_Mixed_nat;jni_CallStaticLongMethod;" mixed.expert | grep -qF "call_stub;Mixed.back(int) [" &&
	grep -q ";start_thread;thread_native_entry(Thread\*);" mixed.expert'

# ---- the Java heap and monitors (-H, -s) ------------------------------------
"$TALLY" record -H -s -o churn.exp java -cp . Churn >churn.out 2>&1
"$TALLY" report churn.exp --metric heap.bytes,sync.wait,sync.count --functions --format csv \
	>churn.csv 2>/dev/null
# 262,144 arrays of 4 KiB (+16 bytes of header each): estimated from the
# JVM's ~2,000 samples within 10% (eight runs: -3.2% to +3.7%); each of the
# 199 contended enters of the monitor waits ~2 ms (Churn.java makes sure of
# it, on a loaded machine too), on their Java stack.
check java_heap_and_monitors python3 -c '
import csv, sys
rows = {r["name"]: r for r in csv.DictReader(open("churn.csv"))}
a, l = rows.get("Churn.alloc()"), rows.get("Churn.locked()")
got = float(a["incl_heap.bytes"]) if a else 0
print("alloc heap.bytes", got, "locked sync.count", l and l["incl_sync.count"], "sync.wait", l and l["incl_sync.wait"])
sys.exit(0 if abs(got - 262144 * 4112) <= 0.1 * 262144 * 4112 and l and
	 float(l["incl_sync.count"]) >= 180 and float(l["incl_sync.wait"]) >= 0.3 else 1)'
# Threads in the JVM's runtime (allocating from the interpreter) keep their
# Java stacks: the collector fills in the pc AsyncGetCallTrace lacks.
check java_stacks_of_threads_in_the_jvm sh -c '
	"$TALLY" report churn.exp --format json >churn.json 2>/dev/null &&
	python3 -c "
import json, sys
o = json.load(open(\"churn.json\"))[\"overview\"]
print(o[\"java_samples\"], o[\"java_no_stack_pct\"])
sys.exit(0 if o[\"java_no_stack_pct\"] < 5 else 1)"'

# ---- a C program that creates its own JVM (JNI_CreateJavaVM) -----------------
# embed.c links libjvm.so and calls JNI_CreateJavaVM by name (no launcher,
# no dlsym): the collector's JNI_CreateJavaVM adds the agent all the same, and
# the C main stays at the root of its thread's Java stacks.
cc -O2 -g -I"$JDK/include" -I"$JDK/include/linux" -o embed embed.c \
	-L"$JDK/lib/server" -ljvm -Wl,-rpath,"$JDK/lib/server"
"$TALLY" record -o embed.exp ./embed 2000 >embed.out 2>&1
"$TALLY" export embed.exp --format collapsed >embed.txt
"$TALLY" export embed.exp --view machine --format collapsed >embed.machine
check java_embedded_jvm_gets_the_agent sh -c 'cat embed.out; grep "^java" embed.exp/log.txt;
	grep -q "shares done" embed.out && grep -q "^java.agent: .*libtally-jvmti.so" embed.exp/log.txt &&
	test -s embed.exp/code.dat'
check java_embedded_jvm_method_shares shares embed.txt \
	'within Shares.task incl Shares.one 0.1667 0.05' \
	'within Shares.task incl Shares.three 0.5 0.06' \
	'within Shares.task path main;Shares.main;Shares.task 0.2 0.06' \
	'within Shares.task path java.lang.Thread.run;java.util.concurrent.ThreadPoolExecutor$Worker.run 0.8 0.06'
# The user view: the C main calls Shares.main, with no JVM frame between;
# the machine view: main -> jni_CallStaticVoidMethod -> call_stub.
check java_embedded_c_main_is_the_root sh -c '
	grep -q "^_start;main;Shares.main(java.lang.String\[\]);Shares.task();" embed.txt &&
	! grep -E "^Shares.main|jni_|JavaCalls|call_stub|Interpreter" embed.txt &&
	grep -q ";main;jni_CallStaticVoidMethod;.*;call_stub;" embed.machine'

# ---- -j off: no agent ---------------------------------------------------------
"$TALLY" record -j off -o off.exp java -cp . Shares 50 >off.out 2>&1
check java_agent_off sh -c 'cat off.out; grep "^java" off.exp/log.txt; ls off.exp;
	grep -q "shares done" off.out && ! grep -q "^java" off.exp/log.txt && test ! -e off.exp/code.dat'
