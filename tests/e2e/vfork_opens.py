# vfork_opens.py TRACE (tests/e2e/test_attach.sh): the opens of /proc in
# an `strace -f` trace made by the program's own threads, not by the
# collector's helpers (the children of a clone with CLONE_VFORK,
# col_fds_aside).  Exit 1 if any, or if the
# trace has no open of /proc at all (nothing was looked at).
import re, sys
lines = [re.match(r"(\d+) +(.*)", l) for l in open(sys.argv[1])]
lines = [(int(m.group(1)), m.group(2)) for m in lines if m]
helpers, pending = set(), set()
for pid, rest in lines:
    if re.match(r"clone3?\(", rest) and "CLONE_VFORK" in rest:
        pending.add(pid)
    if pid in pending and (rest.startswith("<... clone") or re.match(r"clone3?\(", rest)):
        r = re.search(r"\)\s*= (\d+)\s*$", rest)
        if r:
            helpers.add(int(r.group(1)))
            pending.discard(pid)
opens = [(pid, rest) for pid, rest in lines if rest.startswith('openat(AT_FDCWD, "/proc/')]
in_place = [(pid, rest) for pid, rest in opens if pid not in helpers]
print(len(opens), "opens of /proc,", len(in_place), "in the program's threads")
for pid, rest in in_place[:5]:
    print("  ", pid, rest)
sys.exit(0 if opens and not in_place else 1)
