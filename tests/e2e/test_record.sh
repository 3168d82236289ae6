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
	echo data >plain && chmod 644 plain && "$TALLY" record ./plain 2>err; test $? -eq 126 &&
	grep -q "Permission denied" err'
if cc -O2 -static -o static_prog "$PROGS/status.c" 2>/dev/null; then
	check record_static_binary_refused sh -c '
		"$TALLY" record -o s.exp ./static_prog 2>err; test $? -eq 126 &&
		grep -q "statically linked" err && test $(wc -l <err) -eq 1 && test ! -d s.exp'
else
	skip record_static_binary_refused "no static libc to link with"
fi
check record_existing_output_refused sh -c '
	mkdir -p taken.exp && "$TALLY" record -o taken.exp ./status 0 2>err; test $? -eq 2 &&
	grep -q "already exists" err'
check record_log_has_target_and_rusage sh -c '
	"$TALLY" record -o log.exp ./spin 0.2 2>/dev/null &&
	grep -q "^target: .*spin" log.exp/log.txt && grep -q "^exit.status: 0" log.exp/log.txt &&
	grep -q "^rusage.user_ns: [1-9]" log.exp/log.txt && grep -q "^clock: perf_event" log.exp/log.txt'
check record_shell_script_target sh -c '
	printf "#!/bin/sh\nexec ./spin 0.2\n" >run.sh && chmod +x run.sh &&
	"$TALLY" record -o sh.exp ./run.sh 2>/dev/null &&
	"$TALLY" export sh.exp --format collapsed >sh.txt && grep -q "leaf_two" sh.txt'
