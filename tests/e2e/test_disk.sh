# test_disk.sh — an experiment never fills the disk silently.  On a 512 KiB
# tmpfs: a program that fills it while it runs keeps its exit status, and
# `tally record` says in one line what was lost and what to do; a file
# system full from the start is refused before the program runs.  The size
# limit (-L) stops a program that churns allocations under -H at the limit
# (each thread holding 100,000 blocks: -H keeps the live ones in heap.dat),
# says so, and the program goes on; the default limit is half the free
# space, at most 2 GiB.
. "$(dirname "$0")/lib.sh"
cc_prog fillup
cc_prog churn -pthread
cc_prog spin
cd "$T"

mnt=$T/mnt
# fillup spins 2 s of CPU after the disk is full: its first sample may come
# while it fills, and claim 16 KiB for samples.dat (~500 samples) first; 2000
# samples cannot all fit there (at 0.5 s, 3 runs in 6 lost none).
mkdir -p "$mnt"
if mount -t tmpfs -o size=512k tmpfs "$mnt" 2>/dev/null; then
	trap 'umount "$mnt" 2>/dev/null; rm -rf "$T"' EXIT
	check disk_filling_during_run_said_once sh -c "
		\"\$TALLY\" record -o '$mnt/a.exp' ./fillup '$mnt/fill' 2 2>err; rc=\$?; cat err;
		test \$rc -eq 3 && test \$(grep -c warning err) -eq 1 &&
		grep -q 'warning: .*a.exp: the experiment.s file system is full (No space left on device): [0-9]* samples and events lost; free space, or record elsewhere' err"
	check disk_filled_report_shows_loss sh -c "
		\"\$TALLY\" report '$mnt/a.exp' | grep -q 'lost.no-space *[1-9]'"
	check disk_full_logged_with_its_consequence \
		grep -q "^error: samples.dat: errno 28 (its records are lost from now on)$" "$mnt/a.exp/log.txt"
	rm -rf "$mnt/a.exp" "$mnt/fill"
	# Children started after the disk filled make their directories and
	# can write nothing: the cause is the full disk, not an exec.
	check disk_full_not_blamed_on_exec sh -c "
		\"\$TALLY\" record -o '$mnt/c.exp' sh -c './fillup $mnt/fill 0.2; ./spin 0.1; ./spin 0.1' 2>/dev/null;
		\"\$TALLY\" report '$mnt/c.exp' >r.txt; cat r.txt; ! grep -q 'static or set-user-ID' r.txt &&
		grep -q 'Processes .*descendants that recorded nothing: the file system was full' r.txt"
	rm -rf "$mnt/c.exp"
	check disk_full_from_start_refused sh -c "
		\"\$TALLY\" record -o '$mnt/b.exp' sh -c 'touch ran' 2>err; rc=\$?; cat err;
		test \$rc -eq 2 && test ! -e ran && test ! -e '$mnt/b.exp' && test \$(wc -l <err) -eq 1 &&
		grep -q 'b.exp: its file system is full' err"
else
	skip disk_filling_during_run_said_once "cannot mount a tmpfs here (needs root)"
	skip disk_filled_report_shows_loss "cannot mount a tmpfs here (needs root)"
	skip disk_full_logged_with_its_consequence "cannot mount a tmpfs here (needs root)"
	skip disk_full_not_blamed_on_exec "cannot mount a tmpfs here (needs root)"
	skip disk_full_from_start_refused "cannot mount a tmpfs here (needs root)"
fi

check size_limit_stops_heap_churn sh -c '
	"$TALLY" record -F 0 -H -L 1M -o c.exp ./churn 300000 2 100000 2>err; rc=$?; cat err; test $rc -eq 0 &&
	test $(du -sb c.exp | cut -f1) -lt 1300000 &&
	grep -q "warning: c.exp: the experiment reached its size limit (1.0 MiB)" err &&
	"$TALLY" report c.exp >c.txt && grep -q "Size limit *1.0 MiB reached" c.txt &&
	grep -q "lost.size-limit *[1-9]" c.txt'
check size_limit_default_protects_the_disk sh -c '
	"$TALLY" record -o d.exp ./spin 0.01 2>/dev/null &&
	limit=$(sed -n "s/^size-limit: //p" d.exp/log.txt) && free=$(df -B1 --output=avail . | tail -1) &&
	echo limit $limit free $free && test "$limit" -gt 0 && test "$limit" -le 2147483648 &&
	test "$limit" -le $((free / 2 + 1048576))'
check size_limit_unlimited sh -c '
	"$TALLY" record -L unlimited -o e.exp ./spin 0.01 2>/dev/null && grep -q "^size-limit: 0$" e.exp/log.txt'
check size_limit_bad_value_is_usage sh -c '
	"$TALLY" record -L lots ./spin 0.01 2>err; test $? -eq 64 && grep -q "expected a size" err'
