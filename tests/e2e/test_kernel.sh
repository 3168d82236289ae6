# test_kernel.sh — kernel frames (tally record, cli_kernel.c): a program
# that spends about half its CPU in small system calls (tests/progs/
# syscally.c: read/write of a pipe, mmap, a page fault, munmap).
#
#   - with --kernel, where the kernel allows it (root, CAP_PERFMON,
#     perf_event_paranoid <= 1): [kernel] frames above the libc wrappers that made the calls,
#     and their share of the sampled CPU within a derived bound of the
#     system time the program measured itself (getrusage);
#   - --no-kernel at report time hides them (the totals stay), at record
#     time records none, nor does a record without --kernel;
#   - with --kernel --states, the kernel's stack where a thread left the
#     CPU (its context-switch event's chain) above the user stack of each
#     interval: a read of a pipe and a nanosleep (tests/progs/
#     states_phases.c), a futex wait for a mutex (states_mutex.c); the
#     wait metrics' totals are those of --no-kernel, which hides them;
#   - as a user the kernel refuses (user 65534, perf_event_paranoid >= 2):
#     the same run records, and one overview line says why there are no
#     kernel frames and how to allow them.
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog syscally
cc_prog states_phases -pthread
cc_prog states_mutex -pthread

"$TALLY" record --kernel -o k.exp ./syscally 600 >k.out 2>k.err
frames=$(sed -n 's/^kernel\.frames: //p' k.exp/log.txt)
if [ "${frames#recorded}" = "$frames" ]; then
	for n in kernel_frames_above_syscalls kernel_share_matches_system_time \
		kernel_no_kernel_hides kernel_exports_have_kernel kernel_record_no_kernel \
		kernel_states_keep_user_code_in_view kernel_blocked_read kernel_blocked_sleep \
		kernel_blocked_futex kernel_blocked_overview kernel_blocked_labels kernel_static_frames \
		kernel_frames_when_attaching kernel_static_frames_when_attaching kernel_blocked_disk_read \
		kernel_static_blocked_read kernel_static_blocked_sleep; do
		skip $n "the kernel refuses kernel frames here: $frames"
	done
else
	"$TALLY" report k.exp -q --functions --format csv --columns excl,incl,name,object >funcs.csv
	"$TALLY" report k.exp -q --objects --format csv >objects.csv
	# The callees of each libc wrapper are the kernel's (its entry, or a
	# page fault's), and there are some.
	for w in read write __munmap; do
		"$TALLY" report k.exp -q --callers $w --format csv >callers.$w.csv
	done
	check kernel_frames_above_syscalls python3 -c "
import csv
kernel = {r['name'] for r in csv.DictReader(open('funcs.csv')) if r['object'] == '[kernel]'}
for w in ('read', 'write', '__munmap'):
    parts = open('callers.%s.csv' % w).read().strip().split('\n\n')
    callees = [r['name'] for r in csv.DictReader(parts[2].splitlines())] if len(parts) > 2 else []
    print(w, 'callees:', callees[:6])
    assert callees and all(c in kernel for c in callees), w
"
	# The share of [kernel] in the sampled CPU against the program's own
	# system share (getrusage).  The bound is derived from the run: three
	# standard deviations of a share over N samples, plus what the kernel
	# event itself missed of the system time (its ticks x period against
	# getrusage: phases of two timers), plus the CPU not sampled at all,
	# plus the kernel ticks the join left unplaced (at most a tenth).
	cat >share.py <<'PY'
import csv, re, sys
out, objects, logf = sys.argv[1:4]
u, s = map(int, open(out).read().split()[1:3])
S = s / (u + s)
obj = {r["object"]: float(r["excl_cpu"]) for r in csv.DictReader(open(objects))}
total = sum(obj.values())
K = obj.get("[kernel]", 0) / total
log = dict(l.split(": ", 1) for l in open(logf).read().splitlines() if ": " in l)
hz = int(log["clock.hz"])
N = total * hz
ticks = int(log["kernel.samples"])
event_gap = abs(ticks / hz - s / 1e9) / ((u + s) / 1e9)
unsampled = abs(1 - total / ((u + s) / 1e9))
# the kernel time the join could not place (a window's weight is the
# thread's CPU less the collector's; a thread's last ticks): measured, and
# held to a tenth of the kernel's ticks
unplaced = max(0.0, ticks / hz - obj.get("[kernel]", 0)) / total
bound = 3 * (S * (1 - S) / N) ** 0.5 + event_gap + unsampled + unplaced
print("kernel share %.4f system share %.4f |diff| %.4f bound %.4f (3 sd %.4f, event %.4f, unsampled %.4f, unplaced %.4f)"
      % (K, S, abs(K - S), bound, 3 * (S * (1 - S) / N) ** 0.5, event_gap, unsampled, unplaced))
print("ok" if abs(K - S) <= bound and K > 0 and unplaced * total <= 0.1 * ticks / hz else "bad")
PY
	python3 share.py k.out objects.csv k.exp/log.txt >share.txt
	check kernel_share_matches_system_time sh -c 'cat share.txt; tail -n 1 share.txt | grep -qx ok'
	"$TALLY" report k.exp -q --objects --no-kernel --format csv >objects.nok.csv
	check kernel_no_kernel_hides python3 -c "
import csv
a = {r['object']: float(r['excl_cpu']) for r in csv.DictReader(open('objects.csv'))}
b = {r['object']: float(r['excl_cpu']) for r in csv.DictReader(open('objects.nok.csv'))}
print(a, b)
assert '[kernel]' not in b and abs(sum(a.values()) - sum(b.values())) < 0.002
"
	"$TALLY" export k.exp --format collapsed >k.folded
	check kernel_exports_have_kernel python3 -c "
import csv
kernel = {r['name'] for r in csv.DictReader(open('funcs.csv')) if r['object'] == '[kernel]'}
n = 0
for line in open('k.folded'):
    frames = line.rsplit(' ', 1)[0].split(';')
    if 'read' in frames:
        i = frames.index('read')
        n += i + 1 < len(frames) and frames[i + 1] in kernel
print(n, 'stacks with a kernel frame above read')
assert n > 0
"
	# Attached (-p): events tally holds on each thread of the running
	# program; the same bound against the system share of the window the
	# attach sampled (the log's rusage lines, from /proc/PID/stat).
	./syscally 4000 >ka.out 2>&1 &
	kp=$!
	sleep 0.3
	"$TALLY" record --kernel -p $kp --duration 1 -o ka.exp >ka.msg 2>&1
	wait $kp
	"$TALLY" report ka.exp -q --objects --format csv >ka.objects.csv
	"$TALLY" export ka.exp --format collapsed >ka.folded
	printf 'rusage %s %s\n' "$(sed -n 's/^rusage.user_ns: //p' ka.exp/log.txt)" \
		"$(sed -n 's/^rusage.sys_ns: //p' ka.exp/log.txt)" >ka.window
	python3 share.py ka.window ka.objects.csv ka.exp/log.txt >ka.share.txt
	check kernel_frames_when_attaching sh -c 'cat ka.msg ka.share.txt; grep -q "^kernel.frames: recorded" ka.exp/log.txt &&
		tail -n 1 ka.share.txt | grep -qx ok && python3 -c "
import csv
kernel = {r[\"name\"] for r in csv.DictReader(open(\"funcs.csv\")) if r[\"object\"] == \"[kernel]\"}
n = 0
for line in open(\"ka.folded\"):
    frames = line.rsplit(\" \", 1)[0].split(\";\")
    n += \"read\" in frames and any(f in kernel for f in frames[frames.index(\"read\") + 1:])
print(n, \"stacks with a kernel frame above read\")
assert n > 0
"'
	# The states view shows eight frames of a stack, leaf first: the
	# kernel's (ten or more above a system call) as their leaf and count,
	# so that the user code that made the call stays in view.
	"$TALLY" record --kernel --states -o ks.exp ./syscally 200 >/dev/null 2>&1
	"$TALLY" report ks.exp -q --functions --format csv --columns excl,name,object >ksf.csv
	check kernel_states_keep_user_code_in_view sh -c '
		"$TALLY" report ks.exp --states --format csv >ks.csv && python3 -c "
import csv
kernel = {r[\"name\"] for r in csv.DictReader(open(\"ksf.csv\")) if r[\"object\"] == \"[kernel]\"}
rows = [r for r in csv.reader(open(\"ks.csv\")) if len(r) > 5 and r[2] == \"cpu.system\" and r[-1] != \"(all)\"]
print(*[r[-1] for r in rows], sep=\"\n\")
assert rows and kernel, (rows, len(kernel))
for r in rows:
    stack = r[-1]
    # the user code that made the call is in view, whatever the kernel frames
    assert \"main\" in stack, stack
    if stack.split(\" <- \")[0] in kernel and \" <- \" in stack:
        assert stack.split(\" <- \")[1].startswith(\"(\") or stack.split(\" <- \")[1] not in kernel, stack
"'
	# Where the threads blocked, in the kernel: each interval's stack has
	# the kernel's chain at the switch above the user stack.  For each wait
	# metric, of its time at the user function that blocked: at least 95%
	# under kernel frames, a frame of the expected kernel path among them,
	# the scheduler as the leaf; with --no-kernel the same total, no
	# kernel frame.
	"$TALLY" record --kernel --states -o kb.exp ./states_phases 0.3 >kb.out 2>&1
	"$TALLY" record --kernel --states -o km.exp ./states_mutex >km.out 2>&1
	for x in kb km; do
		"$TALLY" report $x.exp -q --functions --metric wall --format csv --columns name,object >$x.f.csv
		for m in wait.io wait.sleep wait.lock; do
			"$TALLY" export $x.exp --format collapsed --metric $m >$x.$m.folded
			"$TALLY" export $x.exp --format collapsed --metric $m --no-kernel >$x.$m.nok.folded
		done
	done
	cat >blocked.py <<'PY'
import csv, sys
x, metric, user, path = sys.argv[1:5]
kernel = {r['name'] for r in csv.DictReader(open(x + '.f.csv')) if r['object'] == '[kernel]'}
def stacks(f):
    for line in open(f):
        frames, w = line.rsplit(' ', 1)
        yield frames.split(';'), int(w)
total = framed = 0
seen = set()
for frames, w in stacks('%s.%s.folded' % (x, metric)):
    if user not in frames:
        continue
    n = 0
    while n < len(frames) and frames[len(frames) - 1 - n] in kernel:
        n += 1
    total += w
    ks = frames[len(frames) - n:]
    if n and any(path in k for k in ks) and 'schedule' in ks[-1]:
        framed += w
        seen.add(';'.join(frames[frames.index(user):]))
nok = sum(w for frames, w in stacks('%s.%s.nok.folded' % (x, metric)) if user in frames)
nok_kernel = sum(1 for frames, w in stacks('%s.%s.nok.folded' % (x, metric)) if any(f in kernel for f in frames[-1:]))
print(metric, 'at', user, ': %d ns, %d under kernel frames (%s...), --no-kernel %d ns, %d of its stacks end in the kernel'
      % (total, framed, path, nok, nok_kernel))
print(*sorted(seen), sep='\n')
assert total > 0 and framed >= 0.95 * total, 'kernel frames missing'
assert abs(nok - total) <= 1000 and nok_kernel == 0, '--no-kernel differs'
PY
	check kernel_blocked_read python3 blocked.py kb wait.io phase_read ksys_read
	check kernel_blocked_sleep python3 blocked.py kb wait.sleep phase_sleep nanosleep
	check kernel_blocked_futex python3 blocked.py km wait.lock take_lock futex
	# The overview: how many intervals got their kernel stack (all of them
	# but those of lost records; at least nine in ten here).
	"$TALLY" report kb.exp >kb.report 2>&1
	check kernel_blocked_overview sh -c 'grep "Kernel at switches" kb.report &&
		grep "Kernel at switches" kb.report | awk "{ if (\$4 < 1 || \$4 < 0.9 * \$6) exit 1 }"'
	# On the time axis an interval is named by the user function that
	# blocked, not by the scheduler above it.
	"$TALLY" export kb.exp --format chrome -o kb.json
	check kernel_blocked_labels python3 -c "
import json
d = json.load(open('kb.json'))
ev = d if isinstance(d, list) else d['traceEvents']
names = sorted({e['name'] for e in ev if e.get('name', '').startswith(('I/O wait:', 'Sleep:'))})
print(names)
assert names and not any('schedule' in n for n in names), names
"
	# A read that waits for the disk (O_DIRECT: no page cache): its
	# wait.io is in the kernel's I/O wait (io_schedule...) above read.
	dd if=/dev/zero of=disk.bin bs=1M count=64 conv=fsync status=none
	cc_prog direct_read
	./direct_read disk.bin >dr.plain 2>&1
	blocked=$(sed -n 's/.*blocked \([0-9]*\) times/\1/p' dr.plain)
	if [ "${blocked:-0}" -ge 10 ]; then
		"$TALLY" record --kernel --states -o dr.exp ./direct_read disk.bin >dr.out 2>&1
		"$TALLY" export dr.exp --format collapsed --metric wait.io >dr.folded
		check kernel_blocked_disk_read python3 -c "
io = sched = 0
for line in open('dr.folded'):
    stack, v = line.rsplit(' ', 1)
    frames = stack.split(';')
    io += int(v)
    if 'read' in frames and any(f.startswith('io_schedule') for f in frames[frames.index('read') + 1:]):
        sched += int(v)
print('wait.io %.3f s, under read -> ... io_schedule %.3f s' % (io / 1e9, sched / 1e9))
assert io > 0 and sched >= 0.9 * io
"
	else
		skip kernel_blocked_disk_read "O_DIRECT reads of the test directory's file did not wait for a device: $(head -n 1 dr.plain)"
	fi
	# A statically linked program (the outside mode): its samples carry
	# the kernel's chain (PERF_SAMPLE_CALLCHAIN), above the user stack
	# unwound from the registers at the system call; the same bound.
	if cc -O2 -g -static -o syscally_static "$PROGS/syscally.c" 2>/dev/null; then
		"$TALLY" record --kernel -o st.exp ./syscally_static 600 >st.out 2>st.err
		"$TALLY" report st.exp -q --objects --format csv >st.objects.csv
		"$TALLY" report st.exp -q --callers __libc_read --format csv >st.callers.csv
		check kernel_static_frames sh -c 'grep -q "^collector.mode: outside" st.exp/log.txt &&
			python3 share.py st.out st.objects.csv st.exp/log.txt >st.share.txt;
			cat st.share.txt; tail -n 1 st.share.txt | grep -qx ok &&
			grep -q "entry_SYSCALL_64" st.callers.csv'
		# Attached to it: the outside session's events, on its threads.
		./syscally_static 4000 >sa.out 2>&1 &
		sp=$!
		sleep 0.3
		"$TALLY" record --kernel -p $sp --duration 1 -o sa.exp >sa.msg 2>&1
		wait $sp
		"$TALLY" report sa.exp -q --objects --format csv >sa.objects.csv
		"$TALLY" report sa.exp -q --callers __libc_read --format csv >sa.callers.csv
		printf 'rusage %s %s\n' "$(sed -n 's/^rusage.user_ns: //p' sa.exp/log.txt)" \
			"$(sed -n 's/^rusage.sys_ns: //p' sa.exp/log.txt)" >sa.window
		check kernel_static_frames_when_attaching sh -c 'cat sa.msg;
			python3 share.py sa.window sa.objects.csv sa.exp/log.txt >sa.share.txt;
			cat sa.share.txt; tail -n 1 sa.share.txt | grep -qx ok &&
			grep -q "entry_SYSCALL_64" sa.callers.csv'
		# Where its threads blocked, from outside: the switch event's
		# sample has the user's stack and the kernel's chain.
		cc -O2 -g -static -pthread -o states_phases_static "$PROGS/states_phases.c"
		"$TALLY" record --kernel --states -o ksb.exp ./states_phases_static 0.3 >ksb.out 2>&1
		"$TALLY" report ksb.exp -q --functions --metric wall --format csv --columns name,object >ksb.f.csv
		for m in wait.io wait.sleep; do
			"$TALLY" export ksb.exp --format collapsed --metric $m >ksb.$m.folded
			"$TALLY" export ksb.exp --format collapsed --metric $m --no-kernel >ksb.$m.nok.folded
		done
		if grep -q "^outside.switch_stacks: " ksb.exp/log.txt; then
			check kernel_static_blocked_read python3 blocked.py ksb wait.io phase_read ksys_read
			check kernel_static_blocked_sleep python3 blocked.py ksb wait.sleep phase_sleep nanosleep
		else
			for n in kernel_static_blocked_read kernel_static_blocked_sleep; do
				skip $n "no stack at a switch: $(sed -n 's/^states: //p' ksb.exp/log.txt | head -c 200)"
			done
		fi
	else
		for n in kernel_static_frames kernel_static_frames_when_attaching kernel_static_blocked_read \
			kernel_static_blocked_sleep; do
			skip $n "no static libc (cc -static failed)"
		done
	fi
	"$TALLY" record --no-kernel -o nok.exp ./syscally 50 >/dev/null 2>&1
	"$TALLY" record -o def.exp ./syscally 50 >/dev/null 2>&1
	"$TALLY" report nok.exp -q --objects --format csv >nok.csv
	"$TALLY" report def.exp -q --objects --format csv >def.csv
	check kernel_record_no_kernel sh -c 'test ! -e nok.exp/kernel.dat && ! grep -q "^kernel.frames" nok.exp/log.txt && ! grep -q "\[kernel\]" nok.csv &&
		test ! -e def.exp/kernel.dat && ! grep -q "^kernel.frames" def.exp/log.txt && ! grep -q "\[kernel\]" def.csv'
fi

# As user 65534 (no CAP_PERFMON): refused unless perf_event_paranoid <= 1.
if need other_user kernel_refused_says_why; then
	if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ]; then
		skip kernel_refused_says_why "perf_event_paranoid <= 1: the kernel allows every user"
	else
		U=$(mktemp -d /tmp/tally-kernel.XXXXXX)
		cp syscally "$U/" && chown -R 65534:65534 "$U"
		(cd "$U" && setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$TALLY" record --kernel -o u.exp ./syscally 100 >u.out 2>u.err)
		"$TALLY" report "$U/u.exp" >"$U/u.report" 2>&1
		check kernel_refused_says_why sh -c "cat '$U/u.err'; grep 'Kernel frames' '$U/u.report';
			test \$(grep -c 'Kernel frames.*not allowed.*perf_event_paranoid=1.*CAP_PERFMON' '$U/u.report') = 1 &&
			grep -q '^rusage' '$U/u.out' && ! grep -q '\[kernel\]' '$U/u.report' &&
			grep -q '^  Samples  *[1-9]' '$U/u.report'"
		rm -rf "$U"
	fi
fi
