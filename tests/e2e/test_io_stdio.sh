# test_io_stdio.sh — I/O tracing sees every stdio entry point: the _unlocked
# family, inline getc_unlocked/putc_unlocked (through __uflow/__overflow and
# the stream's pointers), one-character calls gathered into runs (bytes and
# calls exact, from a thread that ends too), the _FORTIFY_SOURCE forms,
# getline, vectors, sockets and transfers (sendfile, copy_file_range,
# splice); and a real program: `sort -S 1M` of a 20 MB file, whose bytes
# read and written equal the file's size.
. "$(dirname "$0")/lib.sh"
cc -O2 -g -D_FORTIFY_SOURCE=2 -pthread -o "$T/stdioy" "$PROGS/stdioy.c"
cd "$T"
export W="python3 $E2E/weight.py"

mkdir -p io
"$TALLY" record -i -o io.exp ./stdioy io >/dev/null 2>&1
# By the calling function: --no-inline, as a fortified call (recv) is an
# inlined wrapper that would otherwise be a frame `recv (inlined)` of its own.
"$TALLY" export io.exp --format collapsed --metric io.bytes --no-inline >b.txt
"$TALLY" export io.exp --format collapsed --metric io.count --no-inline >c.txt
# $1 function, $2 bytes, $3 calls
each() {
	for spec in "$@"; do
		set -- $(echo "$spec" | tr : ' ')
		b=$($W b.txt "main;$1") c=$($W c.txt "main;$1")
		[ "$b" -eq "$2" ] && [ "$c" -eq "$3" ] || { echo "$1: bytes $b calls $c, expected $2 $3"; return 1; }
	done
}
check stdio_unlocked_family each w_fwrite_unlocked:10000:100 w_fputs_unlocked:500:50 \
	r_fread_unlocked:5000:50
# Inline calls are not calls: only the buffer's refills and flushes are
# (their number depends on the buffer's size).
check stdio_inline_putc_and_getc sh -c "test \$($W b.txt 'main;w_putc_inline') -eq 10000 &&
	test \$($W b.txt 'main;r_getc_inline') -eq 5000 && test \$($W c.txt 'main;w_putc_inline') -le 4 &&
	test \$($W c.txt 'main;r_getc_inline') -le 4"
check stdio_one_character_calls_in_runs each w_fputc:2000:2000
check stdio_fortified_printf_and_lines each w_fprintf:60:10 r_fgets:5000:50 r_getline:5000:51 \
	d_dprintf:6:1
check io_vectors_and_sockets each v_vectors:4000:4 s_socket:2000:2
# A transfer is one call: a write of the destination, the source's read beside it.
check io_transfers each t_sendfile:40000:1 t_copy_file_range:40000:1 t_splice:80000:10
check stdio_run_of_a_thread_that_ends sh -c "test \$($W c.txt th_fputc) -eq 3000 && test \$($W b.txt th_fputc) -eq 3000"
"$TALLY" report io.exp --by-file --format csv >files.csv
check io_by_file_exact python3 -c '
import csv
rows = {r["file"].rsplit("/", 1)[-1]: r for r in csv.DictReader(open("files.csv"))}
want = {"w.txt": 22560, "th.txt": 3000, "t1.txt": 20000, "t2.txt": 20000, "t3.txt": 20000,
        "v.txt": 4000, "d.txt": 6, "r.txt": 100000}
for name, n in want.items():
    assert int(rows[name]["bytes"]) == n, (name, rows[name])'

# sort reads with fread_unlocked and writes with fwrite_unlocked, through
# temporary files when -S is small.
python3 -c '
import os
letters = bytes(ord("a") + i % 10 for i in range(256))
with open("big.txt", "wb") as f:
    for i in range(100000):
        f.write(os.urandom(199).translate(letters) + b"\n")'
TMPDIR=$T "$TALLY" record -i -o sort.exp sort -S 1M -o sorted.txt big.txt 2>/dev/null
"$TALLY" report sort.exp --by-file --format csv >sort.csv
check sort_bytes_equal_file_size python3 -c '
import csv
rows = {r["file"].rsplit("/", 1)[-1]: r for r in csv.DictReader(open("sort.csv"))}
assert int(rows["big.txt"]["bytes"]) == 20000000, rows["big.txt"]
assert int(rows["sorted.txt"]["bytes"]) == 20000000, rows["sorted.txt"]
assert sum(1 for n in rows if n.startswith("sort")) >= 2, "no temporary files: -S not honoured?"'
check sort_output_unchanged sh -c 'sort -S 1M big.txt | cmp - sorted.txt'

# Calls that stayed in the stream's buffer are summed per stack, not a
# record each: exact calls and bytes by stack (emit reached from two
# callers at one depth keeps both stacks), the file's bytes, and far fewer
# records than calls (120,000 writes: 30 flushes of a 4 KiB buffer).
cc -O2 -g -pthread -o "$T/stdio_sums" "$PROGS/stdio_sums.c"
"$TALLY" record -i -o sums.exp ./stdio_sums sums.txt 30000 >/dev/null 2>&1
"$TALLY" export sums.exp --format collapsed --metric io.bytes --no-inline >b.txt
"$TALLY" export sums.exp --format collapsed --metric io.count --no-inline >c.txt
check stdio_buffered_calls_summed_by_stack each "from_a;emit:120000:30000" "from_b;emit:60000:30000" \
	one:30000:30000 read_back:450000:450001
"$TALLY" report sums.exp --by-file --format csv >sums.csv
check stdio_buffered_bytes_by_file python3 -c '
import csv
rows = {r["file"].rsplit("/", 1)[-1]: r for r in csv.DictReader(open("sums.csv"))}
assert int(rows["sums.txt"]["bytes"]) == 900000, rows["sums.txt"]'
check stdio_buffered_calls_few_records sh -c "
	n=\$(\"$TALLY\" check sums.exp | sed -n 's/.* \([0-9]*\) traced events.*/\1/p')
	echo \"\$n traced events\"; test -n \"\$n\" && test \"\$n\" -lt 2000"
# An exec replaces the image with its sums pending (written at the exec).
"$TALLY" record -i -o sums_exec.exp ./stdio_sums sums_exec.txt 100 exec >/dev/null 2>&1
"$TALLY" export sums_exec.exp --format collapsed --metric io.count --no-inline >c.txt
check stdio_buffered_sums_written_at_exec sh -c "test \$($W c.txt 'main;from_a;emit') -eq 100 &&
	test \$($W c.txt 'main;one') -eq 100"
# Sums no thread can write (another thread's at exit, every one at _exit)
# are said: each pending entry is a lost trace event (4 stacks here).
# Before, they vanished with no count.
lost() {
	"$TALLY" report "$1" --format json | python3 -c 'import json, sys
print(json.load(sys.stdin)["overview"].get("lost.trace-events", 0))'
}
"$TALLY" record -i -o sums_thr.exp ./stdio_sums sums_thr.txt 100 thread-exit >/dev/null 2>&1
"$TALLY" record -i -o sums_ex.exp ./stdio_sums sums_ex.txt 100 _exit >/dev/null 2>&1
"$TALLY" record -i -o sums_ok.exp ./stdio_sums sums_ok.txt 100 >/dev/null 2>&1
a=$(lost sums_thr.exp) b=$(lost sums_ex.exp) c=$(lost sums_ok.exp)
check stdio_buffered_sums_lost_are_counted sh -c "echo thread-exit $a _exit $b normal $c;
	test $a -eq 4 && test $b -eq 4 && test $c -eq 0"
# A descriptor's sums are written before it is closed (fclose here), while
# it still names its file: the build before read /proc/self/fd/N of the
# closed descriptor for each entry (6 ENOENT here), and a file another
# thread opened at N meanwhile took the bytes.
if need strace stdio_buffered_sums_written_before_close; then
	strace -f -qq -e trace=readlink,readlinkat -o st.txt "$TALLY" record -i -o sums_st.exp \
		./stdio_sums sums_st.txt 100 >/dev/null 2>&1
	check stdio_buffered_sums_written_before_close sh -c "n=\$(grep -c 'proc/self/fd/.*ENOENT' st.txt);
		echo \$n readlinks of closed descriptors; test -s st.txt && test \$n -eq 0"
fi
# A stream whose descriptor becomes a pipe (dup2 onto stdout's number) has
# its calls on the pipe as events, not summed as on the file before: the
# build before kept the file's kind (23 traced events for 2,000 pipe calls).
cc -O2 -g -o "$T/stdio_topipe" "$PROGS/stdio_topipe.c"
"$TALLY" record -i -o topipe.exp ./stdio_topipe 2000 >topipe.txt 2>/dev/null
"$TALLY" export topipe.exp --format collapsed --metric io.count --no-inline >c.txt
check stdio_stream_onto_pipe_not_summed sh -c "n=\$(\"$TALLY\" check topipe.exp | sed -n 's/.* \([0-9]*\) traced events.*/\1/p');
	echo \$n traced events; test \$($W c.txt 'main;to_file') -eq 2000 && test \$($W c.txt 'main;to_pipe') -eq 2000 &&
	test \$n -ge 2000 && test \$n -lt 2400"
