# test_io_names.sh — I/O by file when descriptors are reused (docs/
# structure.md is silent; docs/collector.md's I/O tracer): one number made
# in turn by open, dup2 onto it, mkstemp, tmpfile, eventfd (not traced),
# pipe and socketpair (fdreuse.c checks the number was reused), and every
# byte, open and close charged to the file the number named at the time.
. "$(dirname "$0")/lib.sh"
cc_prog fdreuse
cd "$T"
mkdir -p d
"$TALLY" record -i -o r.exp ./fdreuse "$T/d" >out.txt 2>err.txt || { cat err.txt; exit 1; }
"$TALLY" report r.exp --by-file --format csv >files.csv
check io_names_follow_reuse python3 -c '
import csv, sys
rows = {r["file"]: r for r in csv.DictReader(open("files.csv"))}
d = sys.argv[1] + "/d/"
mk = open("out.txt").read().split()[0]
def has(name, nbytes, opens, closes):
    r = rows.get(name)
    assert r, (name, sorted(rows))
    got = (int(r["bytes"]), int(r["opens"]), int(r["closes"]))
    assert got == (nbytes, opens, closes), (name, got, (nbytes, opens, closes))
has(d + "a.txt", 1000, 1, 1)
has(d + "b.txt", 2000, 1, 0)              # dup2 closed it: no close call of its own
has(d + "c.txt", 7000, 1, 2)              # 3000 + 4000 through the dup2 copy
has(mk, 5000, 1, 1)
has(d + "d.txt", 9000, 1, 1)
tmp = [n for n in rows if n.endswith("(deleted)") and not n.startswith("anon_inode")]
assert len(tmp) == 1 and int(rows[tmp[0]]["bytes"]) == 6000, tmp
pipes = [r for n, r in rows.items() if n.startswith("pipe:") and int(r["opens"])]
assert len(pipes) == 1 and (int(pipes[0]["bytes"]), int(pipes[0]["opens"]), int(pipes[0]["closes"])) == (1400, 2, 2), pipes
socks = sorted((int(r["bytes"]), int(r["opens"]), int(r["closes"])) for n, r in rows.items() if n.startswith("socket:"))
assert socks == [(0, 1, 1), (800, 1, 1)], socks
has("anon_inode:[eventfd]", 0, 0, 1)
assert not [n for n in rows if n.startswith("fd ")], sorted(rows)' "$T"

# An epoll set made by epoll_create1 or epoll_create while traced is known
# empty, so its first epoll_ctl reads no /proc/self/fdinfo (an open and a
# read in a helper task, col_fds_use); one made by a raw system call is
# still read, once.  epollsets: 20 sets each way and one raw, each given a
# pipe; strace counts the fdinfo opens (the helper's too, -f).  The build
# before read all 41.
cc_prog epollsets
if need strace io_epoll_sets_made_traced_not_read; then
	strace -f -qq -e trace=openat -o epoll.trace "$TALLY" record -F 0 -i -o ep.exp ./epollsets 20 >ep.out 2>ep.err
	check io_epoll_sets_made_traced_not_read sh -c '
		raw=$(awk "/^raw / { print \$2 }" ep.out)
		n=$(grep -c "/proc/self/fdinfo/" epoll.trace)
		nraw=$(grep -c "/proc/self/fdinfo/$raw\"" epoll.trace)
		echo "fdinfo opens $n, of the raw set ($raw) $nraw"
		test -n "$raw" && test "$n" = 1 && test "$nraw" = 1'
fi
