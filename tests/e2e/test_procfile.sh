# test_procfile.sh — a descendant's process file: a short process
# (/bin/true under a shell) writes its log, its counters and its thread's
# records in a slot of the run's processes.dat (format 9), and creates no
# file (format 8 made LINEAGE.proc, an inode per process); one that takes
# samples has its record files in LINEAGE.exp beside it, and its log,
# counters and threads still in its slot; one that outgrows its slot goes
# on in its own LINEAGE.proc, the two read as one.  All read whole (report,
# check); a slot damaged or not one is damage that names it; the older
# layout (tests/data/tree.exp, version 4) still reads.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$E2E/../.." && pwd)
cc_prog spin
cd "$T"

"$TALLY" record -o p.exp -- sh -c '/bin/true; ./spin 0.2; exit 0' >out 2>err
check procfile_record_exit_zero sh -c "test $? -eq 0 && cat err && ! grep -q warning err"

# lineage EXP PROGRAM: the descendant whose log names PROGRAM as its exe.
cat >lineage.py <<'PY'
import sys, tally_proc
exp, prog = sys.argv[1], sys.argv[2]
print([l for l in tally_proc.lineages(exp)
       if any(x.startswith('exe: ') and x.endswith('/' + prog) for x in tally_proc.log_lines(exp, l))][0])
PY
short=$(python3 lineage.py p.exp true)
long=$(python3 lineage.py p.exp spin)

# No file for /bin/true (the build before made LINEAGE.proc): no
# directory; in its slot, its log (who, how made, its end), its counters
# (no sample, no loss) and its thread's start and end.
check procfile_short_process_no_file sh -c "
	test -n '$short' && test ! -e p.exp/$short.proc && test ! -e p.exp/$short.exp &&
	test \"\$(ls p.exp | grep -c '^_')\" -eq 1 && python3 -c \"
import tally_proc
log = tally_proc.log_lines('p.exp', '$short')
for key in ('pid: ', 'created-by: exec', 'argv: /bin/true', 'start.mono_ns: ', 'end.mono_ns: ', 'cpu.end_ns: '):
    assert any(l.startswith(key) for l in log), (key, log)
ctr = tally_proc.counters('p.exp', '$short')
assert ctr[0] == 0 and ctr[1] == 0 and ctr[2] == 0, ctr
types = [t for t, _ in (v for k, v in tally_proc.items('$short', tally_proc.proc_data('p.exp', '$short')) if k == 'record')]
assert 5 in types and 6 in types, types      # THREAD_START, THREAD_END
\""

# The sampled process: record files in its directory, none of the three the
# process file holds; the samples its counters count are the samples read.
check procfile_sampled_process_files_beside sh -c "
	test -n '$long' && python3 -m tally_proc has p.exp $long && test -f p.exp/$long.exp/samples.dat &&
	test -f p.exp/$long.exp/maps.dat && test ! -e p.exp/$long.exp/log.txt &&
	test ! -e p.exp/$long.exp/counters.dat && test ! -e p.exp/$long.exp/threads.dat &&
	n=\$(python3 -c \"import tally_proc; print(tally_proc.counters('p.exp', '$long')[0])\") &&
	test \"\$n\" -gt 50 &&
	\"\$TALLY\" report p.exp --process $long | grep -q \"^  Samples  *\$n \""

# The analyzer reads all of it: three processes, their programs and command
# lines, the short one's thread, the sampled one's work.
check procfile_read_whole sh -c "
	\"\$TALLY\" check p.exp | grep -q '^p.exp: sound: 3 processes' &&
	\"\$TALLY\" report p.exp --processes --format csv >procs.csv &&
	grep -q ',$short,exec,1,/usr/bin/true,,/bin/true\$' procs.csv &&
	\"\$TALLY\" report p.exp --process $short --threads | grep -q 'Threads  *1' &&
	\"\$TALLY\" export p.exp --process $long --format collapsed | grep -q ';main'"

# Damage: a slot's record whose length runs past its end, or a slot whose
# head is not a process file's, is named with its cause at its place in
# processes.dat, once (before, a bad head was said a second time as
# "_slotN.exp/log.txt is missing", a file this layout never has); the other
# processes still read.
cat >damage.py <<'PY'
import sys, tally_proc
exp, lineage, how = sys.argv[1], sys.argv[2], sys.argv[3]
off = tally_proc.slots(exp)[lineage]
with open(exp + '/processes.dat', 'r+b') as f:
    data = f.read()
    if how == 'record':      # the first record's length: 0x100, no newline there
        at = data.index(b'\n\0', off + tally_proc.HEAD) + 2
        f.seek(at)
        f.write((0x05000100).to_bytes(4, 'little'))
        open(exp + '.at', 'w').write('%x\n' % (at - 1))   # the item's place (its NUL)
    elif how == 'version':   # a garbage version in the slot's head
        f.seek(off + 8)
        f.write((0xdeadbeef).to_bytes(4, 'little'))
    elif how == 'twin':      # the slot again, in a slot of its own after the last
        end = (len(data) + tally_proc.SLOT - 1) // tally_proc.SLOT * tally_proc.SLOT
        f.seek(end)
        f.write(data[off:off + tally_proc.SLOT])
        open(exp + '.twin', 'w').write('%x\n' % end)
    elif how == 'lineage':   # its lineage with a '/' in it: a path out of the experiment
        at = data.index(b'lineage: ', off) + len(b'lineage: ')
        f.seek(at + 1)
        f.write(b'/..'[:len(lineage) - 1])
    else:
        f.seek(off)
        f.write(b'XXXXXXXX')
print(off)
PY
cp -r p.exp cut.exp && python3 damage.py cut.exp $short record >cut.off
check procfile_slot_record_damage_named sh -c "
	\"\$TALLY\" check cut.exp >chk.txt 2>&1; rc=\$?; cat chk.txt; test \$rc -ne 0 &&
	grep -q 'cut.exp/processes.dat: at 0x[0-9a-f]*: record cut short or malformed' chk.txt &&
	\"\$TALLY\" export cut.exp --process $long --format collapsed 2>/dev/null | grep -q ';main'"
# The place is the damaged item's in processes.dat, not in the slot joined
# to its continuation (before: the offset within the slot), and it is named
# once: the file and that offset, no "(slot at N)" beside an offset that
# already counts N (before 'processes.dat (slot at 16384): at 0x4158').
check procfile_slot_damage_at_its_place_in_file sh -c "
	grep -q 'cut.exp/processes.dat: at 0x'\$(cat cut.exp.at)': record cut short or malformed' chk.txt &&
	! grep -q 'slot at' chk.txt &&
	\"\$TALLY\" export cut.exp --process $long --format collapsed 2>/dev/null | grep -q ';main'"
cp -r p.exp bad.exp && python3 damage.py bad.exp $short head >bad.off
check procfile_slot_bad_head_is_damage sh -c "
	\"\$TALLY\" report bad.exp >rep.txt 2>rep.err; rc=\$?; cat rep.err; test \$rc -eq 1 &&
	grep -q \"bad.exp/processes.dat: at 0x\$(printf %x \$(cat bad.off)): a slot whose head is not a process file's\" rep.err &&
	! grep -q 'is missing' rep.err && \"\$TALLY\" check bad.exp | grep -qx 'bad.exp: 1 problem' &&
	\"\$TALLY\" export bad.exp --process $long --format collapsed 2>/dev/null | grep -q ';main'"

# A garbage version in a slot's head is damage to that slot, named at its
# place, not "newer than this tally" for the whole run (before: it was).
cp -r p.exp ver.exp && python3 damage.py ver.exp $short version >ver.off
check procfile_slot_garbage_version_is_slot_damage sh -c "
	\"\$TALLY\" report ver.exp >ver.txt 2>ver.err; rc=\$?; cat ver.err; test \$rc -eq 1 &&
	grep -q \"ver.exp/processes.dat: at 0x\$(printf %x \$((\$(cat ver.off) + 8))): format version 3735928559\" ver.err &&
	! grep -q newer ver.err &&
	\"\$TALLY\" export ver.exp --process $long --format collapsed 2>/dev/null | grep -q ';main'"

# Two slots of one lineage: the second is said, with both places (before:
# it was dropped unsaid, the experiment sound).
cp -r p.exp twin.exp && python3 damage.py twin.exp $short twin >twin.off
check procfile_twin_slots_said sh -c "
	\"\$TALLY\" check twin.exp >twin.txt 2>&1; rc=\$?; cat twin.txt; test \$rc -ne 0 &&
	grep -q \"twin.exp/processes.dat: at 0x\$(cat twin.exp.twin): a second slot of lineage $short (the first at 0x\$(printf %x \$(cat twin.off))): not read\" twin.txt &&
	\"\$TALLY\" report twin.exp --processes --format csv | grep -c ',$short,' | grep -qx 1"

# A slot written by a newer tally (its head's version one past this
# tally's) is a process left out: `tally check` says so, with the cause,
# as `tally report` does (before: check said "sound: 2 processes").
cp -r p.exp newslot.exp && python3 - newslot.exp $(cat bad.off) <<'PY'
import struct, sys
with open(sys.argv[1] + '/processes.dat', 'r+b') as f:
    f.seek(int(sys.argv[2]) + 8)
    v = struct.unpack('<I', f.read(4))[0] + 1
    f.seek(int(sys.argv[2]) + 8)
    f.write(struct.pack('<I', v))
PY
check procfile_newer_slot_process_left_out_said sh -c "
	\"\$TALLY\" check newslot.exp >newslot.txt 2>&1; rc=\$?; cat newslot.txt; test \$rc -eq 1 &&
	grep -q '^newslot.exp: 1 process could not be read, left out (newslot.exp/processes.dat: format version [0-9]* is newer' newslot.txt &&
	! grep -q sound newslot.txt"

# A process left out is not a fork child unless its lineage says so: the
# overview's "Fork children N not recorded" counts the numbers a process
# gave children that left nothing, and a lost process's lineage is among
# the recorded.  sh runs forkburst (whose 5 fork children end at once,
# unrecorded), then execs spin (_x1, an image, not a fork child); _x1's
# slot is made newer, so it is left out.  Before: 4 (lost processes were
# taken off the count as a number); now 5, as without the loss.
cc_prog forkburst -pthread
"$TALLY" record -o lx.exp -- sh -c './forkburst 5 0; exec ./spin 0.05' >/dev/null 2>&1
cp -r lx.exp lxlost.exp && python3 - lxlost.exp <<'PY'
import struct, sys, tally_proc
off = tally_proc.slots(sys.argv[1])['_x1']
with open(sys.argv[1] + '/processes.dat', 'r+b') as f:
    f.seek(off + 8)
    v = struct.unpack('<I', f.read(4))[0] + 1
    f.seek(off + 8)
    f.write(struct.pack('<I', v))
PY
check procfile_lost_exec_image_not_a_fork_child sh -c "
	\"\$TALLY\" report lx.exp >lx.txt 2>&1; grep '^  Fork children *5 not recorded' lx.txt &&
	\"\$TALLY\" report lxlost.exp >lxlost.txt 2>&1; cat lxlost.txt | grep -i 'fork children\|could not be read'
	grep -q '1 process could not be read' lxlost.txt && grep -q '^  Fork children *5 not recorded' lxlost.txt"

# A slot whose lineage is not one the collector writes (a '/' in it) is
# named by its place, never used as a path (before: ROOT/_/...exp).
cp -r p.exp lin.exp && python3 damage.py lin.exp $short lineage >lin.off
check procfile_slot_bad_lineage_named_by_place sh -c "
	\"\$TALLY\" report lin.exp --processes --format csv >lin.csv 2>lin.err; cat lin.csv lin.err
	grep -q _slot\$(cat lin.off) lin.csv && ! grep -q '_/' lin.csv lin.err"

# A process whose items outgrow its slot (16 KiB: 300 threads' starts,
# ends and costs) goes on in its own LINEAGE.proc: every thread is read,
# in one process.
cc_prog manythreads
"$TALLY" record -o big.exp -- sh -c './manythreads 300 10; exit 0' >/dev/null 2>&1
big=$(python3 lineage.py big.exp manythreads)
check procfile_slot_overflow_continues_in_own_file sh -c "
	test -n '$big' && test -f big.exp/$big.proc && \"\$TALLY\" check big.exp | grep -q 'sound: 2 processes' &&
	\"\$TALLY\" report big.exp --process $big --threads | grep -q 'Threads  *301'"

# A continuation that is not a process file costs itself only: the slot's
# part is read, the continuation named, the report partial (exit 1).
# Before: the process was dropped, and processes.dat named.
cp -r big.exp bigc.exp && printf XXXXXXXX | dd of=bigc.exp/$big.proc conv=notrunc 2>/dev/null
check procfile_bad_continuation_keeps_slot sh -c "
	\"\$TALLY\" report bigc.exp --process $big --threads >bigc.txt 2>bigc.err; rc=\$?; cat bigc.err
	test \$rc -eq 1 && grep -q 'bigc.exp/$big.proc: at 0x0: not a tally experiment file (bad magic)' bigc.err &&
	! grep -q 'processes.dat' bigc.err &&
	n=\$(sed -n 's/^ *Threads  *\([0-9]*\).*/\1/p' bigc.txt | head -1) && echo threads \$n &&
	test \"\$n\" -gt 1 && test \"\$n\" -lt 301"
# A continuation that cannot be read (here larger than the reader takes,
# a sparse 300 MiB) is named once, with its cause (before: its path twice,
# "X.proc: X.proc: not a regular file (or past 256 MiB)").
cp -r big.exp bigh.exp && truncate -s 300M bigh.exp/$big.proc
check procfile_unread_continuation_named_once sh -c "
	\"\$TALLY\" check bigh.exp >bigh.txt 2>&1; rc=\$?; cat bigh.txt; test \$rc -ne 0 &&
	grep -qx 'bigh.exp/$big.proc: larger than 256 MiB: not read' bigh.txt"
rm -rf bigh.exp
# A continuation that is not a regular file (a directory, a FIFO) is
# named, "not a regular file", in `tally check` and report's warning, once
# each; the slot's part is read (partial, exit 1).  Before: skipped unsaid,
# check said "sound".
for kind in dir fifo; do
	cp -r big.exp big$kind.exp && rm big$kind.exp/$big.proc
	if [ $kind = dir ]; then mkdir big$kind.exp/$big.proc; else mkfifo big$kind.exp/$big.proc; fi
	check procfile_continuation_${kind}_said sh -c "
		timeout 60 \"\$TALLY\" check big$kind.exp >big$kind.txt 2>&1; rc=\$?; cat big$kind.txt; test \$rc -eq 1 &&
		grep -qx 'big$kind.exp/$big.proc: not a regular file' big$kind.txt &&
		timeout 60 \"\$TALLY\" report big$kind.exp --process $big --threads >big$kind.rep 2>big$kind.err; rc=\$?
		cat big$kind.err; test \$rc -eq 1 && test \$(grep -c '$big.proc: not a regular file' big$kind.err) -eq 1 &&
		grep -q '^ *Threads  *[1-9]' big$kind.rep"
	rm -rf big$kind.exp
done
# A continuation written by a newer tally (its head's version one past this
# tally's) is not damage: it is said once, "written by a newer tally
# (format V)", and left out; the slot's part is read, the report partial
# (exit 1).  Before: damage, "X.proc: X.proc: format version V is newer...".
cp -r big.exp bign.exp && python3 - bign.exp/$big.proc >bign.ver <<'PY'
import struct, sys
with open(sys.argv[1], 'r+b') as f:
    f.seek(8)
    v = struct.unpack('<I', f.read(4))[0] + 1
    f.seek(8)
    f.write(struct.pack('<I', v))
print(v)
PY
check procfile_newer_continuation_said_and_skipped sh -c "
	\"\$TALLY\" check bign.exp >bign.txt 2>&1; rc=\$?; cat bign.txt; test \$rc -eq 1 &&
	grep -q '^bign.exp/$big.proc: written by a newer tally (format '\$(cat bign.ver)'): ' bign.txt &&
	test \$(grep -c '$big.proc' bign.txt) -eq 1 && ! grep -q 'is newer than' bign.txt &&
	\"\$TALLY\" report bign.exp --process $big --threads >bign.rep 2>bign.err; rc=\$?; cat bign.err
	test \$rc -eq 1 && grep -q 'written by a newer tally' bign.err && ! grep -q 'damaged place' bign.err &&
	n=\$(sed -n 's/^ *Threads  *\([0-9]*\).*/\1/p' bign.rep | head -1) && echo threads \$n &&
	test \"\$n\" -gt 1 && test \"\$n\" -lt 301"
# Damage in the continuation is named at its place in that file (its first
# item, after the head: its size is the format header's EXP_PROC_HEAD_BYTES,
# tests/pylib/tally_proc.py), not at the joined bytes' offset.
head=$(python3 -c 'import tally_proc; print(tally_proc.HEAD)')
cp -r big.exp bigd.exp && printf '\000\000\001\000\005' | dd of=bigd.exp/$big.proc bs=1 seek=$head conv=notrunc 2>/dev/null
check procfile_continuation_damage_at_its_place sh -c "
	\"\$TALLY\" check bigd.exp >bigd.txt 2>&1; rc=\$?; cat bigd.txt; test \$rc -ne 0 && test -n '$head' &&
	grep -q 'bigd.exp/$big.proc: at 0x$(printf %x "$head"): record cut short or malformed' bigd.txt"

# The older layout: every descendant a directory (format 4).
check procfile_older_layout_reads sh -c "
	\"\$TALLY\" check '$ROOT/tests/data/tree.exp' | grep -q 'sound: 4 processes'"

# A descendant that changes its root and works on there without an exec:
# its process file is held (as the founder holds its directory), so its
# end lines reach the experiment though no path from the new root names
# it.  With `ulimit -n N` (the hard limit too) the collector is lean and
# held nothing else: it reopened the file by its path for each line, and
# the end was lost (the build before fails the lean check).
if [ "$(id -u)" != 0 ]; then
	skip procfile_chroot_descendant_log_lean "chroot needs root"
else
	cc_prog chrootstay
	mkdir -p jail
	for mode in lean held; do
		lim="ulimit -n 1024"
		[ $mode = held ] && lim="ulimit -Sn 1024"
		check procfile_chroot_descendant_log_$mode sh -c "
			$lim && \"\$TALLY\" record -o c$mode.exp -- sh -c './chrootstay jail; exit 0' >out.$mode 2>err.$mode
			rc=\$?; cat out.$mode err.$mode; test \$rc -eq 0 && grep -qx chrooted out.$mode &&
			l=\$(python3 lineage.py c$mode.exp chrootstay) && echo \"descendant \$l\" && python3 -c \"
import tally_proc
log = tally_proc.log_lines('c$mode.exp', '\$l')
for key in ('end.mono_ns: ', 'cpu.end_ns: '):
    assert any(x.startswith(key) for x in log), (key, log)
\""
	done
fi
