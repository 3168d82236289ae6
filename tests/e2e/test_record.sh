# test_record.sh — `tally record` as a launcher: experiment naming, exit
# status and signal pass-through, standard streams, and the one-line errors
# for programs that cannot be run or profiled.
. "$(dirname "$0")/lib.sh"
cc_prog status
cc_prog spin

cd "$T"
check record_names_experiments_tally_N sh -c '
	"$TALLY" record ./status 0 2>/dev/null && "$TALLY" record ./status 0 2>err &&
	test -d tally.1.exp && test -d tally.2.exp && grep -q "tally.2.exp" err'
check record_passes_exit_status sh -c '"$TALLY" record -o st.exp ./status 3 2>/dev/null; test $? -eq 3'
check record_passes_signal_as_128_plus_n sh -c '
	"$TALLY" record -o sig.exp ./status -15 2>err; rc=$?; test $rc -eq 143 &&
	grep -q "signal 15" err && grep -q "^exit.signal: 15" sig.exp/log.txt'
check record_keeps_stdin_stdout_stderr sh -c '
	out=$(echo hello | "$TALLY" record -o io.exp ./status echo 2>err) &&
	test "$out" = hello && grep -q "to stderr" err'
check record_missing_program_is_127 sh -c '
	"$TALLY" record ./no-such-program 2>err; rc=$?; test $rc -eq 127 &&
	test $(wc -l <err) -eq 1 && grep -q "no-such-program" err'
check record_command_not_in_path_is_127 sh -c '
	"$TALLY" record no-such-command-xyz 2>err; test $? -eq 127 && grep -q "command not found" err'
check record_not_executable_is_126 sh -c '
	{ echo data >plain && chmod 644 plain && "$TALLY" record ./plain 2>err; test $? -eq 126; } &&
	grep -q "Permission denied" err'
# A static program is recorded from outside (test_static.sh); tracing it
# is refused, one line, before anything is made.
if need static record_static_tracing_refused; then
	cc -O2 -static -o static_prog "$PROGS/status.c"
	check record_static_tracing_refused sh -c '
		"$TALLY" record -H -o s.exp ./static_prog 2>err; test $? -eq 64 &&
		grep -q "statically linked" err && test $(wc -l <err) -eq 1 && test ! -d s.exp'
fi
check record_existing_output_refused sh -c '
	{ mkdir -p taken.exp && "$TALLY" record -o taken.exp ./status 0 2>err; test $? -eq 2; } &&
	grep -q "already exists" err'
check record_log_has_target_and_rusage sh -c '
	"$TALLY" record -o log.exp ./spin 0.2 2>/dev/null &&
	grep -q "^target: .*spin" log.exp/log.txt && grep -q "^exit.status: 0" log.exp/log.txt &&
	grep -q "^rusage.user_ns: [1-9]" log.exp/log.txt && grep -q "^clock: perf_event" log.exp/log.txt'
check record_shell_script_target sh -c '
	printf "#!/bin/sh\nexec ./spin 0.2\n" >run.sh && chmod +x run.sh &&
	"$TALLY" record -o sh.exp ./run.sh 2>/dev/null &&
	"$TALLY" export sh.exp --format collapsed >sh.txt && grep -q "leaf_two" sh.txt'

# The program's own objects are archived by build-id: rebuilding it after the
# run does not break the report.
check record_archives_program_for_rebuilds sh -c '
	cp spin spin2 && "$TALLY" record -o arch.exp ./spin2 0.2 2>/dev/null && test -n "$(ls arch.exp/archive)" &&
	cc -O1 -o spin2 "$PROGS/spin.c" -DREBUILT && "$TALLY" export arch.exp --format collapsed 2>err >arch.txt &&
	grep -q "main;parent;leaf_two" arch.txt'

# include/tally.h: pause/resume, markers, --time between markers (a name may
# hold a dash: main-work-work-done).
lib="${TALLY_BUILD:-$(dirname "$TALLY")/..}/lib"
cc -O2 -g -I"$PROGS/../../include" -o api "$PROGS/api.c" -L"$lib" -ltally -Wl,-rpath,"$lib"
check api_without_tally_is_harmless ./api 0
check api_pause_hides_work sh -c '"$TALLY" record -o api.exp ./api 1 2>/dev/null &&
	"$TALLY" export api.exp --format collapsed >api.txt && grep -q "main;shown;burn" api.txt && ! grep -q hidden api.txt'
check api_markers_listed_and_select_time sh -c '"$TALLY" report api.exp | grep -q "Marker .* work" &&
	"$TALLY" export api.exp --format collapsed --time setup-main-work >setup.txt && ! grep -q shown setup.txt &&
	"$TALLY" export api.exp --format collapsed --time main-work-work-done >work.txt && grep -q shown work.txt'

# A collector that does not start (here: libraries that are not tally's) is
# said, not silently an empty experiment; the program runs as usual.
mkdir -p fakelib && echo 'int tally_fake;' >fakelib/x.c &&
	cc -shared -fPIC -o fakelib/libtally-collector.so fakelib/x.c &&
	cp fakelib/libtally-collector.so fakelib/libtally-mcount.so
check record_says_when_collector_did_not_start sh -c '
	TALLY_LIB_DIR=fakelib "$TALLY" record -o nocol.exp ./status 0 2>err; test $? -eq 0 &&
	grep -q "the collector did not start" err && ! "$TALLY" record -o yescol.exp ./status 0 2>&1 |
	grep -q "did not start"'

# A log that cannot be written (here: files limited to 0 bytes) stops the
# recording before the program runs, with one line, and leaves nothing.
check record_unwritable_log_is_fatal sh -c '
	(trap "" XFSZ; ulimit -f 0; "$TALLY" record -o nolog.exp ./spin 0.1 2>&1; echo "rc $?") | cat >nolog.txt;
	grep -qx "tally record: nolog.exp/log.txt: File too large" nolog.txt && grep -qx "rc 2" nolog.txt &&
	test $(wc -l <nolog.txt) -eq 2 && test ! -e nolog.exp'
