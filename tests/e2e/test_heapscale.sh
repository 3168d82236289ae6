# test_heapscale.sh — heap tracing at scale: a program making a million
# allocations of mixed sizes on two threads (tests/progs/heapmix.c) under
# `tally record -H` with the clock on.  Its own totals by call site are
# tally's heap.count, heap.bytes and heap.leak exactly; the experiment grows
# with distinct stacks and live blocks, not events (heap.dat under 2 bytes
# per allocation and release) and `tally record` stays under 64 MiB; no clock
# sample is lost while the tracer holds the collector (a signal then is
# taken when it leaves), so the samples account for the process's CPU time
# as without -H.  A thousand short threads that allocate once each share
# their tables of sums (a 16 KiB block per thread before).  A live heap
# that rises to 20,000 blocks and falls back to 5 leaves tables grown and
# then emptied: only the 5 leak (the reader once took an emptied table's
# older generation for the stripe's live blocks), and its peak is exact (one
# thread allocates); one allocation site reached from two callers at the
# same depth is two stacks, and three callers of one wrapper are three
# stacks the collector remembers, not walks again (stacks.traced-unwound).
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog heapmix -pthread
cc_prog heapthreads -pthread
cc_prog heapwave
export W="python3 $E2E/weight.py"

# The largest resident set of `tally record` and its descendants (heapmix's
# own is a few MiB), in KiB.
python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=open("own.txt", "w"), stderr=open("err.txt", "w"))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' "$TALLY" record -H -o mix.exp ./heapmix 500000 2 >rss.txt
"$TALLY" export mix.exp --format collapsed --metric heap.count >count.txt
"$TALLY" export mix.exp --format collapsed --metric heap.bytes >bytes.txt
"$TALLY" export mix.exp --format collapsed --metric heap.leak >leak.txt
"$TALLY" report mix.exp --format json >report.json
own() { awk -v k="$1" -v f="$2" '$1 == k {print $f}' own.txt; }
check heapscale_counts_equal_the_programs sh -c "cat own.txt &&
	test \$($W count.txt worker\\;site_malloc) -eq $(own malloc 2) &&
	test \$($W count.txt worker\\;site_calloc) -eq $(own calloc 2)"
check heapscale_bytes_equal_the_programs sh -c "
	test \$($W bytes.txt worker\\;site_malloc) -eq $(own malloc 3) &&
	test \$($W bytes.txt worker\\;site_calloc) -eq $(own calloc 3)"
check heapscale_leaks_equal_the_programs sh -c "
	test \$($W leak.txt worker\\;site_calloc) -eq $(own leaked 2) &&
	test \$($W leak.txt worker\\;site_malloc) -eq 0"
check heapscale_check_counts_the_allocations sh -c "
	\"\$TALLY\" check mix.exp >chk.txt; cat chk.txt
	n=\$(sed -n 's/.* \\([0-9]*\\) traced events.*/\\1/p' chk.txt)
	test \"\$n\" -ge $(($(own malloc 2) + $(own calloc 2)))"
check heapscale_two_bytes_per_event_at_most sh -c "
	events=\$(($(own malloc 2) + $(own calloc 2))); bytes=\$(wc -c <mix.exp/heap.dat)
	echo heap.dat \$bytes bytes for \$events allocations and as many releases
	test \$bytes -le \$((2 * events))"
check heapscale_record_memory_under_64_MiB sh -c "cat rss.txt; test \$(cat rss.txt) -le 65536"
# Without a lost sample the samples and the collector's own time account for
# the process's CPU time as in a run without -H (over 90%); half the clock's
# signals were dropped as lost.reentry before they were deferred.
check heapscale_no_clock_sample_lost python3 -c "
import json
o = json.load(open('report.json'))['overview']
print({k: v for k, v in o.items() if k.startswith(('lost', 'samples', 'accounted', 'kernel'))})
assert 'lost.reentry' not in o, o
assert o['samples'] > 100 and o['accounted_pct'] >= 90, o"

"$TALLY" record -F 0 -H -o thr.exp ./heapthreads 1000 >/dev/null 2>&1
"$TALLY" export thr.exp --format collapsed --metric heap.count >thr.txt
check heapscale_short_threads_share_tables sh -c "
	bytes=\$(wc -c <thr.exp/heap.dat); echo heap.dat \$bytes bytes for 1000 threads
	test \$($W thr.txt thread_site) -eq 1000 && test \$bytes -lt 1048576 &&
	\"\$TALLY\" report thr.exp --threads --format csv >thr.csv && python3 -c '
import csv
rows = [r for r in csv.DictReader(open(\"thr.csv\")) if r[\"thread\"] != \"\" and r[\"start\"] != \"(main thread)\"]
ones = sum(1 for r in rows if r[\"excl_heap.count\"] == \"1\")
print(ones, \"threads with their one allocation of\", len(rows))
assert ones == 1000, ones'"

"$TALLY" record -H -o wave.exp ./heapwave 20000 5 >wave.own 2>/dev/null
"$TALLY" export wave.exp --format collapsed --metric heap.leak >wave.txt
"$TALLY" export wave.exp --format collapsed --metric heap.count >wavec.txt
check heapscale_emptied_tables_leak_nothing sh -c "
	cat wave.own; grep -E 'wave_site|keep_site' wave.txt
	test \$($W wavec.txt main\\;wave_site) -eq 20000 &&
	test \$($W wave.txt main\\;keep_site) -eq \$(awk '/^kept/ {print \$2}' wave.own) &&
	test \$($W wave.txt main\\;wave_site) -eq 0"
# One thread allocates: its live bytes go to the process's total in batches
# (no locked add per event), but always before they would pass the peak, so
# the peak is the program's own, not up to 64 KiB low (what libc held
# before main aside: under a page).
"$TALLY" report wave.exp --format json >wave.json
check heapscale_one_thread_peak_exact python3 -c "
import json
o = json.load(open('wave.json'))['overview']
own = int([l.split()[1] for l in open('wave.own') if l.startswith('peak')][0])
print('peak', o.get('heap_peak'), 'program', own)
assert own <= o['heap_peak'] < own + 4096, (o.get('heap_peak'), own)"
check heapscale_same_leaf_two_callers sh -c "
	grep twin_site wavec.txt
	test \$($W wavec.txt main\\;via_a\\;twin_site) -eq 500 &&
	test \$($W wavec.txt main\\;via_b\\;twin_site) -eq 500"

# One wrapper (a program's xmalloc) called by three callers in turn: every
# traced malloc has the same return address at the same depth, and the
# thread's memo of traced stacks keeps all three (with sets of two entries,
# before f35b837, each evicted another: stacks.traced-unwound was 90,001,
# every allocation unwound again).  The counter counts the first sight of
# each stack, so it is never 0.
cc_prog heapwrap
"$TALLY" record -F 0 -H -o wrap.exp ./heapwrap 30000 >wrap.own 2>/dev/null
"$TALLY" export wrap.exp --format collapsed --metric heap.count >wrapc.txt
"$TALLY" report wrap.exp --format json >wrap.json
check heapscale_wrapper_stacks_remembered sh -c "
	cat wrap.own; grep xwrap wrapc.txt
	test \$($W wrapc.txt main\\;caller_a\\;xwrap) -eq 30000 &&
	test \$($W wrapc.txt main\\;caller_b\\;xwrap) -eq 30000 &&
	test \$($W wrapc.txt main\\;caller_c\\;xwrap) -eq 30000 &&
	python3 -c '
import json
n = json.load(open(\"wrap.json\"))[\"overview\"].get(\"stacks.traced-unwound\", 0)
print(\"stacks walked:\", n, \"of 90,000 allocations\")
assert 3 <= n <= 900, n'"

# Blocks freed by another thread than the one that allocated them go back to
# the allocator's arena, where the allocating thread's next malloc gets the
# same address at once: a release recorded after the real free then removed
# that new block (2-6 "unpaired" and "unseen" frees in 2 M handoffs before
# the release was recorded first).
cc_prog heaphandoff -pthread
"$TALLY" record -F 0 -H -o hand.exp ./heaphandoff 2000000 10 >hand.own 2>/dev/null
"$TALLY" export hand.exp --format collapsed --metric heap.leak >handl.txt
"$TALLY" report hand.exp --format json >hand.json
check heapscale_release_recorded_before_the_real_free sh -c "
	cat hand.own; grep handoff_site handl.txt
	test \$($W handl.txt main\\;handoff_site) -eq $(awk '/^leaked/ {print $2}' hand.own 2>/dev/null || echo x) &&
	python3 -c '
import json
o = json.load(open(\"hand.json\"))[\"overview\"]
bad = {k: v for k, v in o.items() if k in (\"heap_unpaired_frees\", \"heap_unseen_frees\") and v}
assert not bad, bad'"

# 150,000 blocks live at once: the live-block table grows to its largest
# record (12 MiB), whose inner blocks are full of addresses and sizes.  The
# end of the recording cut heap.dat where such a block read as records (3
# of 6 recordings damaged, the table's last 114 KB lost): only zeros are
# cut now.  Three recordings, each sound.
cc_prog heaplive
check heapscale_largest_table_kept_whole sh -c '
	for i in 1 2 3; do
		rm -rf live.exp && "$TALLY" record -H -o live.exp ./heaplive >/dev/null 2>&1 &&
		"$TALLY" check live.exp || exit 1
	done'
