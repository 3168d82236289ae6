# test_unwind.sh — the preloaded collector's unwinder on code whose CFI is
# in .debug_frame alone (docs/collector.md, "Unwinding"): built with
# -fno-asynchronous-unwind-tables -fno-unwind-tables -fomit-frame-pointer,
# dynamically linked, as a PIE and not.  tests/progs/dfchain.c reaches one
# leaf through two chains of its own (main;path_a;mid_a;work and
# main;path_b;mid_b;work) and prints each chain's CPU time: each chain's
# share of the samples is the program's own measure of it, within 0.05,
# and under 2% of the time has a stack that does not reach _start.  Before,
# such code was walked by frame pointers: every stack stopped at mid_a;work.
# A library built so and dlopen'd (tests/progs/dflib.c): the scan at the
# dlopen reads it; over 98% of the time under main;outer_lib;inner (before:
# outer_lib;inner, main lost); again with a second thread alive at the
# dlopen (the file then opened aside, by the fd helper).  Loaded and
# unloaded 200 times (dflib cycles): the mappings do not grow, and every
# load is read.  Compressed (-gz): one log line in the preloaded
# collector; read by the outside mode.
. "$(dirname "$0")/lib.sh"
cd "$T"

# whole NAME: record ./NAME, check its chains' shares and whole stacks.
whole() {
	"$TALLY" record -o $1.exp ./$1 8 >$1.out 2>$1.err || { cat $1.err; return 1; }
	"$TALLY" export $1.exp --format collapsed >$1.folded
	grep "^unwind.debug_frame: " $1.exp/log.txt
	a=$(awk '$1 == "a" {print $2}' $1.out) b=$(awk '$1 == "b" {print $2}' $1.out)
	share_a=$(python3 -c "print('%.4f' % ($a / ($a + $b)))")
	share_b=$(python3 -c "print('%.4f' % ($b / ($a + $b)))")
	echo "program: path_a $share_a, path_b $share_b of its CPU"
	python3 "$E2E/profile.py" $1.folded "path main;path_a;mid_a;work $share_a 0.05" \
		"path main;path_b;mid_b;work $share_b 0.05" || return 1
	awk '{ w = $NF; total += w; if ($1 !~ /^_start;/) { bad += w; print "not whole:", $0 } }
	     END { print bad + 0, "of", total, "ns not whole"; exit bad > total / 50 }' $1.folded
}

# whole_outside NAME: whole, recorded from outside (a static program).
whole_outside() {
	whole $1 && grep "^collector.mode: outside" $1.exp/log.txt
}

flags="-O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables -fomit-frame-pointer"
cc $flags -fpie -pie -o dfchain_pie "$PROGS/dfchain.c"
cc $flags -fno-pie -no-pie -o dfchain_nopie "$PROGS/dfchain.c"
if readelf -S dfchain_pie | grep -q " \.debug_frame"; then
	check debug_frame_pie_callers whole dfchain_pie
	check debug_frame_no_pie_callers whole dfchain_nopie
	check debug_frame_read_logged grep -q "^unwind.debug_frame: .*/dfchain_pie: read: [1-9][0-9]* of its FDEs" \
		dfchain_pie.exp/log.txt
	cc $flags -fPIC -shared -DDFLIB_LIBRARY -o libdflib.so "$PROGS/dflib.c"
	cc -O2 -g -pthread -o dflib "$PROGS/dflib.c" -ldl
	check debug_frame_dlopen_library_callers sh -c '"$TALLY" record -o dflib.exp ./dflib 12 >/dev/null 2>&1 &&
		grep "^unwind.debug_frame: .*/libdflib.so: read" dflib.exp/log.txt &&
		"$TALLY" export dflib.exp --format collapsed >dflib.folded &&
		python3 "$E2E/profile.py" dflib.folded "path main;outer_lib;inner 1.0 0.02"'
	# The same with a second thread alive at the dlopen: the file is read
	# aside, on the fd helper's small stack (10 KB of buffers there
	# overflowed it: every such process died of SIGSEGV, 68efb3b).
	check debug_frame_dlopen_threaded_aside sh -c '"$TALLY" record -o dflibt.exp ./dflib 12 threaded >/dev/null 2>&1 &&
		grep "^unwind.debug_frame: .*/libdflib.so: read" dflibt.exp/log.txt &&
		"$TALLY" export dflibt.exp --format collapsed --thread "$(sed -n "s/^pid: //p" dflibt.exp/log.txt)" >dflibt.folded &&
		python3 "$E2E/profile.py" dflibt.folded "path main;outer_lib;inner 1.0 0.02"'
	# Loaded and unloaded 200 times: each unload gives its copy back to
	# the pool, and the next load takes it, so the program's own count of
	# its mappings after the 200th unload is its count after the 20th
	# (before: a new copy each load, 55 -> 101 lines, and 59 loads found
	# no room within 2 GiB, walked by frame pointers).
	check debug_frame_dlclose_maps_steady sh -c '"$TALLY" record -o dfcyc.exp ./dflib 2 cycles 200 >dfcyc.out 2>&1 &&
		cat dfcyc.out && awk "\$1 == \"maps\" { n[\$2] = \$3 }
			END { exit !(n[20] > 0 && n[200] > 0 && n[200] <= n[20] + 2) }" dfcyc.out'
	check debug_frame_dlclose_each_load_read sh -c 'grep "^unwind.debug_frame: " dfcyc.exp/log.txt |
		sed "s/.*libdflib.so: //; s/[0-9][0-9]* of/N of/" | sort | uniq -c;
		test "$(grep -c "^unwind.debug_frame: .*/libdflib.so: read: " dfcyc.exp/log.txt)" = 201 &&
		test "$(grep -c "^unwind.debug_frame: .*/libdflib.so: " dfcyc.exp/log.txt)" = 201'
	# Compressed (-gz): the preloaded collector, which must not load zlib,
	# says so in one line naming the file; the outside mode (static)
	# inflates it, and its stacks are whole.
	cc $flags -gz -fpie -pie -o dfchain_gz "$PROGS/dfchain.c"
	if readelf -S dfchain_gz | grep -A1 " \.debug_frame" | grep -q " C "; then
		check debug_frame_compressed_one_line sh -c '"$TALLY" record -o dfgz.exp ./dfchain_gz 2 >/dev/null 2>&1 &&
			grep "^unwind.debug_frame: " dfgz.exp/log.txt &&
			test "$(grep -c "^unwind.debug_frame: .*/dfchain_gz: compressed, not read" dfgz.exp/log.txt)" = 1 &&
			test "$(grep -c "^unwind.debug_frame: " dfgz.exp/log.txt)" = 1'
		if cc $flags -gz -static -o dfchain_gzs "$PROGS/dfchain.c" 2>/dev/null; then
			check debug_frame_compressed_outside_whole whole_outside dfchain_gzs
		else
			skip debug_frame_compressed_outside_whole "no static libc (cc -static failed)"
		fi
	else
		skip debug_frame_compressed_one_line "cc -gz wrote no compressed .debug_frame"
		skip debug_frame_compressed_outside_whole "cc -gz wrote no compressed .debug_frame"
	fi
else
	skip debug_frame "cc wrote no .debug_frame with -fno-asynchronous-unwind-tables -g"
fi

# The memo of traced stacks (docs/tracing.md, item 6) keeps 256 stacks of
# distinct call site and depth taken in turn: with 128 entries every one
# was walked again each round (12,555 walks of 12,800 allocations), with
# 512 a few sets that hold more than four keys still take turns (2,000-3,200).
cc -O0 -g -o "$T/manystacks" "$PROGS/manystacks.c"
(cd "$T" && "$TALLY" record -F 0 -H -o "$T/many.exp" ./manystacks 50 >/dev/null 2>&1)
"$TALLY" report "$T/many.exp" --format json >"$T/many.json"
check unwind_memo_keeps_256_stacks python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))["overview"]
n = o.get("stacks.traced-unwound", 0)
print("stacks walked:", n, "of", o.get("heap.count"), "allocations")
assert o.get("heap.count") == 12800 and 256 <= n <= 6400, n' "$T/many.json"
