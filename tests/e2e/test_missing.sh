# test_missing.sh — a data file that is missing or cannot be read is damage
# (issue 19), samples.dat as much as heap.dat, sync.dat, io.dat or
# threads.dat: report, html, export, annotate and diff exit 1 with a warning
# naming it and report the rest; check lists it and exits 1.  A FIFO or an
# unreadable file costs that file only, not the whole report (exit 2).
. "$(dirname "$0")/lib.sh"
cc_prog spin
cc_prog heapmix -pthread
cc_prog syncy -pthread
cd "$T"
"$TALLY" record -o ok.exp -- ./spin 0.3 >/dev/null 2>rec.err || { cat rec.err; exit 1; }

# every_command EXP FILE: each analysis command on EXP; checks each exits 1
# with a warning naming FILE on stderr, and writes its rc lines to EXP.rc.
every_command() {
	exp=$1 file=$2 fails=0
	for c in "report $exp" "html $exp -o $exp.html" "export $exp --format collapsed" \
		 "diff ok.exp $exp" "annotate $exp main" "check $exp"; do
		$RUN "$TALLY" $c >cmd.out 2>cmd.err; rc=$?
		named=no
		grep -q "$file" cmd.err cmd.out && named=yes
		echo "tally $c: exit $rc, names $file: $named"
		[ $rc = 1 ] && [ $named = yes ] || fails=$((fails + 1))
	done
	return $fails
}
RUN=
cp -r ok.exp nosamples.exp && rm nosamples.exp/samples.dat
check missing_samples_is_damage every_command nosamples.exp samples.dat
cp -r ok.exp fifo.exp && rm fifo.exp/samples.dat && mkfifo fifo.exp/samples.dat
check fifo_costs_that_file_only every_command fifo.exp samples.dat
# stacks.dat is made at a process's first stack node: a clock sample's
# stack goes into samples.dat's runs, a heap event's into stacks.dat.
"$TALLY" record -o heap.exp -H -- ./heapmix 2000 1 >/dev/null 2>rec.err || { cat rec.err; exit 1; }
for f in maps.dat stacks.dat log.txt; do
	src=ok.exp
	[ $f = stacks.dat ] && src=heap.exp
	cp -r $src no_$f.exp && rm no_$f.exp/$f
done
check no_stacks_dat_without_stack_nodes sh -c '! test -e ok.exp/stacks.dat && "$TALLY" report ok.exp >/dev/null'
check check_and_report_agree_on_missing_files sh -c '
	for f in maps.dat stacks.dat log.txt; do
		"$TALLY" report no_$f.exp >/dev/null 2>r.err; rr=$?
		"$TALLY" check no_$f.exp >c.out 2>&1; rc=$?
		echo "$f: report $rr check $rc: $(cat r.err c.out | tr "\n" " ")"
		test $rr = 1 && test $rc = 1 && grep -q "$f" r.err && grep -q "$f: missing" c.out || exit 1
	done'
# The tracers' files (and threads.dat): the log says which record files the
# collector opened (`file.opened`); one of them deleted is damage too.
"$TALLY" record -o hsi.exp -H -s -i -- ./spin 0.3 >/dev/null 2>rec.err || { cat rec.err; exit 1; }
# heap.dat and sync.dat are made at a process's first record of theirs: a
# program that allocates, and one whose threads wait for a lock.
"$TALLY" record -o hsi_heap.dat.exp -H -s -i -- ./heapmix 2000 1 >/dev/null 2>rec.err || { cat rec.err; exit 1; }
"$TALLY" record -o hsi_sync.dat.exp -H -s -i -- ./syncy >/dev/null 2>rec.err || { cat rec.err; exit 1; }
for f in heap.dat sync.dat io.dat threads.dat; do
	src=hsi.exp
	[ -d hsi_$f.exp ] && src=hsi_$f.exp
	cp -r $src no_$f.exp && rm no_$f.exp/$f
	check missing_${f%.dat}_is_damage every_command no_$f.exp $f
done
check sound_tracer_experiment_still_sound "$TALLY" check hsi.exp
check sound_experiment_still_sound sh -c '"$TALLY" check ok.exp && "$TALLY" report ok.exp >/dev/null'
# Unreadable: as a user who may read everything else.
if [ "$(id -u)" != 0 ]; then
	cp -r ok.exp unread.exp && chmod 000 unread.exp/samples.dat
	check unreadable_file_costs_that_file_only every_command unread.exp samples.dat
elif ! command -v setpriv >/dev/null || ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$TALLY"; then
	skip unreadable_file_costs_that_file_only "root reads any file, and user 65534 cannot run $TALLY"
else
	chmod 755 "$T"
	cp -r ok.exp unread.exp && chmod 000 unread.exp/samples.dat && chmod 777 .
	RUN="setpriv --reuid=65534 --regid=65534 --clear-groups"
	check unreadable_file_costs_that_file_only every_command unread.exp samples.dat
fi
exit 0
