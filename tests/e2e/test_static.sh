# test_static.sh — the outside mode (src/outside/, docs/static.md):
# statically linked programs, which no collector can be preloaded into,
# sampled by `tally record` itself with perf events and unwound afterwards
# by the collector's own CFI unwinder.
#
#   - a static glibc program (tests/progs/staticky.c, two threads with
#     shares 0.75 / 0.25): whole stacks (up to _start or the thread's
#     start), and each function's share within 0.03 of perf's
#     (`perf record --call-graph dwarf`) on the same run;
#   - the same built with musl-gcc -static; a Go program (tests/progs/
#     gospin, CGO_ENABLED=0) by its Go names;
#   - the Go program stripped (-ldflags=-s -w: no .symtab, no DWARF): the
#     same experiment reported with the stripped binary in place gives the
#     same functions and shares, named from Go's own table (.gopclntab);
#   - each thread's CPU (--threads) from its switch records: within 2%,
#     50 us a switch and 1 ms of the CPU time the thread measured itself,
#     at a period (100 ms) longer than the threads' CPU;
#   - the same program built with -fno-asynchronous-unwind-tables
#     -fno-unwind-tables -O2 (its own code's CFI only in .debug_frame, no
#     frame pointers): stacks as whole;
#   - --states from the switch records (tests/progs/states_phases.c built
#     -static): wait for a CPU and blocked time within 5% of the phases'
#     wall time of what the program measured itself;
#   - a block in a page fault (tests/progs/fault_block.c: a mapped file's
#     dropped pages) is wait.io, not a system call's wait.sleep;
#   - descendants: a fork that execs, each in its sub-experiment, the
#     samples 85% of the kernel's CPU of both or more, and at most 101% plus
#     three of the run's sampling errors: task-clock's timer may count the
#     time on a CPU by the clock, interrupts and a VM's steal included,
#     which the kernel's CPU time leaves out (at load 6, 73 samples for
#     70.6 ms: 103.4%); a process counted twice would be far above;
#   - -p PID of a running static process: its threads sampled from outside
#     for --duration, and it goes on undisturbed;
#   - -H -s -i -m refused with one line before anything runs; the overview
#     names the mode;
#   - as user 65534 under perf_event_paranoid 2, the run records without
#     the kernel's ticks, and the overview says so.
# Skipped with the reason where perf_event_open is refused, or go,
# musl-gcc, perf or a static libc is missing.
. "$(dirname "$0")/lib.sh"
cd "$T"

if ! need static static_glibc_stacks_whole static_glibc_shares_match_perf static_musl_shares_match_perf \
	static_go_shares_match_perf static_go_stripped_names static_thread_cpu static_debug_frame \
	static_states static_states_stacks static_states_fault static_descendants static_attach \
	static_tracing_refused static_overview_names_mode; then
	exit 0
fi
cc -O2 -g -static -pthread -o staticky "$PROGS/staticky.c"

# Can this user sample?  (perf_event_paranoid 3, a seccomp filter...)
if ! "$TALLY" record -o probe.exp ./staticky 1 >/dev/null 2>probe.err; then
	why="the outside mode cannot sample here: $(head -c 200 probe.err)"
	for n in static_glibc_stacks_whole static_glibc_shares_match_perf static_musl_shares_match_perf \
		static_go_shares_match_perf static_go_stripped_names static_thread_cpu static_debug_frame \
		static_states static_states_stacks static_states_fault static_descendants static_attach \
		static_tracing_refused static_overview_names_mode; do
		skip $n "$why"
	done
	exit 0
fi

# perf_same_run NAME PROG ARGS...: record PROG under tally under perf
# (both sample the same run: perf's event and tally's are independent),
# into NAME.exp and NAME.perf.txt (perf's shares among the program's own
# samples: its comm).  False if perf cannot record.
perf_same_run() {
	name=$1
	shift
	comm=$(basename "$1" | cut -c1-15)
	perf record -q -e task-clock -F 1000 --call-graph dwarf -o "$name.data" -- \
		"$TALLY" record -o "$name.exp" "$@" >"$name.out" 2>"$name.err" || return 1
	perf report -i "$name.data" --comm "$comm" --no-children --sort sym --stdio -q \
		--percentage relative >"$name.perf.txt" 2>/dev/null &&
	"$TALLY" report "$name.exp" -q --functions --format csv --columns excl,name >"$name.csv"
}

have_perf=
command -v perf >/dev/null && perf record -q -e task-clock -o pp.data true 2>/dev/null && have_perf=1

"$TALLY" record -o w.exp ./staticky 60 >/dev/null 2>w.err
"$TALLY" export w.exp --format collapsed >w.folded
# Every stack reaches its thread's start (clone3/start_thread) or _start:
# nothing cut short, and the two workers under their thread functions.
check static_glibc_stacks_whole sh -c '
	python3 "$E2E/profile.py" w.folded "path heavy_thread;heavy 0.5 0.4" \
		"path light_thread;light 0.3 0.3" &&
	awk "{ w = \$NF; total += w
	       if (\$1 !~ /^(_start|__clone3|clone3|start_thread);/ && \$1 !~ /^(_start|__clone3)\$/) {
		bad += w; print \"not whole:\", \$0 } }
	     END { print bad + 0, \"of\", total, \"ns not whole\"; exit bad > total / 50 }" w.folded'

if [ -z "$have_perf" ]; then
	skip static_glibc_shares_match_perf "perf is missing or cannot record here"
else
	perf_same_run g ./staticky 150
	check static_glibc_shares_match_perf python3 "$E2E/static_shares.py" g.csv g.perf.txt 0.03 heavy light
fi

if ! command -v musl-gcc >/dev/null; then
	skip static_musl_shares_match_perf "musl-gcc is missing (apt-get install musl-tools)"
elif [ -z "$have_perf" ]; then
	skip static_musl_shares_match_perf "perf is missing or cannot record here"
else
	musl-gcc -O2 -g -static -pthread -o staticky_musl "$PROGS/staticky.c"
	perf_same_run m ./staticky_musl 150
	check static_musl_shares_match_perf python3 "$E2E/static_shares.py" m.csv m.perf.txt 0.03 heavy light
fi

if ! command -v go >/dev/null; then
	skip static_go_shares_match_perf "go is missing (apt-get install golang-go)"
elif [ -z "$have_perf" ]; then
	skip static_go_shares_match_perf "perf is missing or cannot record here"
elif ! (cp -r "$PROGS/gospin" gosrc && cd gosrc && CGO_ENABLED=0 GOCACHE="$T/gocache" GOFLAGS=-mod=mod \
	go build -o ../gospin . >../go.err 2>&1); then
	skip static_go_shares_match_perf "go build failed: $(head -c 200 go.err)"
else
	perf_same_run go ./gospin 150
	check static_go_shares_match_perf python3 "$E2E/static_shares.py" go.csv go.perf.txt 0.03 \
		main.spinA main.spinB
fi

# Code whose CFI is only in .debug_frame (no unwind tables asked for, and
# -O2 keeps no frame pointers): walked by that CFI, copied in .eh_frame's
# form; its stacks are as whole as the program's with unwind tables.
# GCC writes CIE version 1 and no .eh_frame_hdr for a static program;
# clang version 4 and a .eh_frame_hdr (the linker's table, rebuilt with
# the copy's FDEs): both, where clang is installed.
debug_frame_whole() {
	"$TALLY" record -o $1.exp ./$1 60 >/dev/null 2>$1.err
	"$TALLY" export $1.exp --format collapsed >$1.folded
	readelf -S $1 | grep -q " \.debug_frame" &&
	python3 "$E2E/profile.py" $1.folded "path heavy_thread;heavy 0.5 0.4" \
		"path light_thread;light 0.3 0.3" &&
	awk "{ w = \$NF; total += w
	       if (\$1 !~ /^(_start|__clone3|clone3|start_thread);/ && \$1 !~ /^(_start|__clone3)\$/) {
		bad += w; print \"not whole:\", \$0 } }
	     END { print bad + 0, \"of\", total, \"ns not whole\"; exit bad > total / 50 }" $1.folded
}
cc -O2 -g -static -pthread -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-o staticky_df "$PROGS/staticky.c"
command -v clang >/dev/null && clang -O2 -g -static -pthread -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -o staticky_dfc "$PROGS/staticky.c" 2>/dev/null
debug_frame_both() {
	debug_frame_whole staticky_df || return 1
	if [ -x staticky_dfc ]; then
		echo "clang:"
		debug_frame_whole staticky_dfc
	fi
}
check static_debug_frame debug_frame_both

# Thread states from outside: the switch records give each interval off
# the CPU exactly, and where the kernel lets tally count in it, a sample of
# the context-switch event the user's stack where it went off (else no
# stack at a block: <Unknown>, a sleep).  The main
# thread's wait for a CPU is its runnable time (schedstat, as the program
# measured it) and its blocked time the sleep and the pipe read less their
# runnable parts, each within 5% of the three phases' wall time.
cc -O2 -g -static -pthread -I"$PROGS" -o states_phases_static "$PROGS/states_phases.c"
"$TALLY" record --states -o stt.exp ./states_phases_static 0.3 >stt.out 2>stt.err
tid=$(sed -n 's/^pid: //p' stt.exp/log.txt)
for m in wait.cpu wait.sleep wait.io wait.lock; do
	"$TALLY" export stt.exp --format collapsed --metric $m --thread "$tid" >stt.$m.folded
done
check static_states python3 -c "
phase = {l.split()[0]: list(map(int, l.split()[1:])) for l in open('stt.out') if l.split()[0] in ('sleep', 'burn', 'read')}
def total(m):
    return sum(int(l.rsplit(' ', 1)[1]) for l in open('stt.%s.folded' % m))
wall = sum(v[0] for v in phase.values())
runnable = sum(v[2] for v in phase.values())
blocked = phase['sleep'][0] - phase['sleep'][2] + phase['read'][0] - phase['read'][2]
got_cpu = total('wait.cpu')
got_blocked = total('wait.sleep') + total('wait.io') + total('wait.lock')
print('wait.cpu %.4f s (program %.4f), blocked %.4f s (program %.4f), bound %.4f' %
      (got_cpu / 1e9, runnable / 1e9, got_blocked / 1e9, blocked / 1e9, 0.05 * wall / 1e9))
assert abs(got_cpu - runnable) <= 0.05 * wall and abs(got_blocked - blocked) <= 0.05 * wall
" 
# Where: the sleep phase's blocked time in wait.sleep under phase_sleep,
# the pipe read's in wait.io under phase_read, each within 5% of the
# phases' wall time of what the program measured.
if grep -q "^outside.switch_stacks: " stt.exp/log.txt; then
	check static_states_stacks python3 -c "
phase = {l.split()[0]: list(map(int, l.split()[1:])) for l in open('stt.out') if l.split()[0] in ('sleep', 'burn', 'read')}
def under(m, fn):
    return sum(int(v) for s, v in (l.rsplit(' ', 1) for l in open('stt.%s.folded' % m)) if fn in s.split(';'))
wall = sum(v[0] for v in phase.values())
sleep, read = phase['sleep'][0] - phase['sleep'][2], phase['read'][0] - phase['read'][2]
got_sleep, got_read = under('wait.sleep', 'phase_sleep'), under('wait.io', 'phase_read')
print('wait.sleep in phase_sleep %.4f s (program %.4f), wait.io in phase_read %.4f s (program %.4f), bound %.4f' %
      (got_sleep / 1e9, sleep / 1e9, got_read / 1e9, read / 1e9, 0.05 * wall / 1e9))
assert abs(got_sleep - sleep) <= 0.05 * wall and abs(got_read - read) <= 0.05 * wall
"
else
	skip static_states_stacks "no stack at a switch: $(sed -n 's/^states: //p' stt.exp/log.txt | head -c 200)"
fi

# A block in a page fault, not a system call: fault_block.c reads a file
# mapped after its pages were dropped from the cache, so each first touch
# waits for the disk in touch_pages, at no syscall instruction.  From the
# instruction before the switch sample's pc, the block is a fault's:
# wait.io, and no wait.sleep there (before, every block with a stack was
# taken for a system call's: all wait.sleep).  The outside mode knows each
# interval off the CPU exactly, but splits it into blocked and runnable by
# the thread's run delay polled once a period and spread over that period's
# blocks, so a loaded machine moves time between wait.io and wait.cpu (at
# load 9: 16 ms of wait.cpu where the program had 6 ms runnable).  So: the
# touches' time off the CPU (wait.io and wait.cpu in touch_pages) within
# 10% (+2 ms) of the program's (wall less CPU), wait.io at least half of
# what the program measured blocked, each less what the program could not
# place (a wait for a CPU between its clock reads, printed: 43 ms at load
# 13).
# Skipped when the faults never blocked (a file on tmpfs: no voluntary
# switch, or no major fault) or there is no stack at a switch.
cc -O2 -g -static -I"$PROGS" -o fault_block_static "$PROGS/fault_block.c"
"$TALLY" record --states -o fb.exp ./fault_block_static "$T/fb.dat" 32 3 >fb.out 2>fb.err
if ! grep -q "^outside.switch_stacks: " fb.exp/log.txt; then
	skip static_states_fault "no stack at a switch: $(sed -n 's/^states: //p' fb.exp/log.txt | head -c 200)"
elif ! awk '$1 == "touch" { exit !($5 > 0 && $6 > 0) }' fb.out; then
	skip static_states_fault "the faults never blocked ($(cat fb.out): a file on tmpfs?)"
else
	for m in wait.io wait.sleep wait.cpu; do
		"$TALLY" export fb.exp --format collapsed --metric $m >fb.$m.folded
	done
	check static_states_fault python3 -c "
wall, cpu, runnable, majflt, nvcsw, slack = (int(v) for v in open('fb.out').read().split()[1:7])
def under(m, fn):
    return sum(int(v) for s, v in (l.rsplit(' ', 1) for l in open('fb.%s.folded' % m)) if fn in s.split(';'))
blocked = wall - cpu - runnable
io, sleep, rq = (under(m, 'touch_pages') for m in ('wait.io', 'wait.sleep', 'wait.cpu'))
off = wall - cpu
print('touch_pages: wait.io %.4f s, wait.cpu %.4f s, wait.sleep %.4f s; the program off the CPU %.4f s, '
      'blocked %.4f s, runnable %.4f s (%d major faults, %d switches; %.4f s runnable across its clock reads)' %
      (io / 1e9, rq / 1e9, sleep / 1e9, off / 1e9, blocked / 1e9, runnable / 1e9, majflt, nvcsw, slack / 1e9))
assert 0.9 * off - 2e6 - slack <= io + rq <= 1.1 * off + 2e6
assert io >= 0.5 * blocked - slack and sleep <= 0.1 * blocked + slack
"
fi

# Each thread's CPU comes from its switches on and off a CPU, not from its
# samples: at -F 10 (a sample per 100 ms) the threads (about 150 and 50 ms)
# have one or two samples, and their CPU is still the one they measured
# (staticky prints it with the number of its switches): within 2%, 50 us a
# switch (the switch's own work, before the record that puts the thread on)
# and 1 ms (its end after its print).
"$TALLY" record -F 10 -o tc.exp ./staticky 150 >/dev/null 2>tc.err
"$TALLY" report tc.exp -q --threads --format csv >tc.csv
check static_thread_cpu python3 -c "
import csv
k = {r['tid']: float(r['kernel_cpu']) for r in csv.DictReader(open('tc.csv'))}
n = 0
for line in open('tc.err'):
    f = line.split()
    if len(f) != 4 or f[0] != 'thread':
        continue
    cpu, sw = int(f[2]) / 1e9, int(f[3])
    bound = 0.02 * cpu + 50e-6 * sw + 1e-3
    print('thread %s: program %.4f s, tally %.4f s, %d switches, bound %.4f' % (f[1], cpu, k.get(f[1], 0), sw, bound))
    assert abs(k.get(f[1], 0) - cpu) <= bound
    n += 1
assert n == 2
"

# A stripped Go binary is named by its own function table: one run of the
# unstripped build, reported once with it and once with the stripped build
# in its place (the same code); every function of 1% or more of the CPU
# has the same name and share (the symbol table's ".abi0" suffix of
# assembly functions aside), and no unnamed region takes 1%.
if ! command -v go >/dev/null; then
	skip static_go_stripped_names "go is missing (apt-get install golang-go)"
elif ! (cp -r "$PROGS/gospin" gostrip && cd gostrip && CGO_ENABLED=0 GOCACHE="$T/gocache" GOFLAGS=-mod=mod \
	go build -o ../gospin_full . >../gos.err 2>&1 && CGO_ENABLED=0 GOCACHE="$T/gocache" \
	GOFLAGS=-mod=mod go build -ldflags="-s -w" -o ../gospin_stripped . >>../gos.err 2>&1); then
	skip static_go_stripped_names "go build failed: $(head -c 200 gos.err)"
else
	cp gospin_full gospin_x
	"$TALLY" record -o gx.exp ./gospin_x 60 >/dev/null 2>gx.err
	"$TALLY" report gx.exp -q --functions --format csv --columns excl,name >gx.full.csv
	cp gospin_stripped gospin_x
	"$TALLY" report gx.exp -q --functions --format csv --columns excl,name >gx.stripped.csv
	cat >stripped.py <<'PY'
import csv
def shares(f):
    rows = [r for r in csv.DictReader(open(f)) if r["name"] != "<Total>"]
    total = sum(float(r["excl_cpu"]) for r in rows)
    out = {}
    for r in rows:
        n = r["name"].replace(".abi0", "")
        out[n] = out.get(n, 0) + float(r["excl_cpu"]) / total
    return out
a, b = shares("gx.full.csv"), shares("gx.stripped.csv")
for n in sorted(a, key=a.get, reverse=True)[:6]:
    print("%-40s full %.3f stripped %.3f" % (n, a[n], b.get(n, 0)))
assert b.get("main.spinA", 0) > 0.1 and b.get("main.spinB", 0) > 0.05
for n, s in a.items():
    if s >= 0.01 and not n.endswith("(inlined)"):
        assert abs(b.get(n, 0) - s) <= 0.01, n
unnamed = sum(s for n, s in b.items() if n.startswith("<static>"))
print("unnamed", unnamed)
assert unnamed < 0.01
PY
	check static_go_stripped_names sh -c '! readelf -S gospin_stripped | grep -q " \.symtab\| \.debug_info" &&
		python3 stripped.py'
fi

# A fork whose child execs: the parent's light() in the founder, the
# child's heavy() in _f1_x1.exp (created by exec), neither in the other;
# what was sampled in all of them is the CPU the kernel counted (wait4's,
# children included) but for the last period of each thread.
"$TALLY" record -o f.exp ./staticky family 60 >/dev/null 2>f.err
check static_descendants sh -c '
	grep -q "^created-by: exec" f.exp/_f1_x1.exp/log.txt &&
	"$TALLY" export f.exp/_f1_x1.exp --format collapsed >child.folded &&
	grep -q "main;heavy " child.folded && ! grep -q ";light " child.folded &&
	"$TALLY" export f.exp --format collapsed >all.folded &&
	grep "^.sk\|main;light " all.folded >/dev/null &&
	"$TALLY" report f.exp --format json | python3 -c "
import json, sys
o = json.load(sys.stdin)[\"overview\"]
print(o[\"accounted_pct\"])
assert 85 <= o[\"accounted_pct\"] <= 101 + 3 * o[\"sampling_error_pct\"], o"'

# Attach: a static process with three spinning threads (tests/progs/
# attach_work.c), sampled for a second; its three functions are there, in
# threads of its own, and it finishes with the checksum it prints alone.
cc -O2 -g -static -pthread -o aw_static "$PROGS/attach_work.c"
./aw_static threads 3 >aw.out 2>aw.err & AW=$!
for _ in $(seq 100); do grep -q '^ready' aw.err 2>/dev/null && break; sleep 0.1; done
"$TALLY" record -p $AW --duration 1 -o a.exp 2>a.err
wait $AW; aw_rc=$?
check static_attach sh -c '
	test '$aw_rc' -eq 0 && grep -q "which goes on" a.err &&
	"$TALLY" export a.exp --format collapsed >a.folded &&
	grep -q ";work_a " a.folded && grep -q ";work_b " a.folded && grep -q "work_parent " a.folded &&
	test $("$TALLY" report a.exp --threads --format csv | grep -c "^[0-9]") -ge 3 ||
	{ cat a.err; "$TALLY" report a.exp --threads; exit 1; }'

check static_tracing_refused sh -c '
	for opt in -H -s -i -m -d --delay=1 --control=cmd; do
		"$TALLY" record -o t.exp $opt ./staticky 1 >/dev/null 2>err; rc=$?
		test $rc -eq 64 && test $(wc -l <err) -eq 1 && grep -q "statically linked" err &&
		grep -q -- "${opt%%=*}" err && test ! -d t.exp || { cat err; exit 1; }
	done'

# As user 65534 with perf_event_paranoid 2: the kernel refuses ticks in
# kernel mode, the run records (user mode only), and the overview says so.
if need other_user static_as_user; then
	if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ]; then
		skip static_as_user "perf_event_paranoid <= 1: the kernel allows every user kernel ticks"
	else
		U=$(mktemp -d /tmp/tally-static.XXXXXX)
		cp staticky "$U/" && chown -R 65534:65534 "$U"
		(cd "$U" && setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$TALLY" record -o u.exp ./staticky 40 >u.out 2>u.err)
		"$TALLY" report "$U/u.exp" >"$U/u.report" 2>&1
		check static_as_user sh -c "cat '$U/u.err'; grep Collector '$U/u.report';
			grep -q 'Collector .*outside mode.*ticks in the kernel not sampled' '$U/u.report' &&
			grep -q '^  Samples  *[1-9]' '$U/u.report' && grep -q ' heavy ' '$U/u.report'"
		rm -rf "$U"
	fi
fi

check static_overview_names_mode sh -c '
	"$TALLY" report w.exp | grep -q "outside mode: statically linked; tracing unavailable"'
