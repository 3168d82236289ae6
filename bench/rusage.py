#!/usr/bin/env python3
"""rusage.py OUT -- ARGV...: run ARGV (stdout to OUT, stderr to OUT.err) and
print "CPU_S MAXRSS_KB WALL_S": its user + system CPU time and the largest
resident set of it and the descendants it waited for (wait4), and its wall
time.  Exits with its status.  For bench sections that compare tools' cost
and memory (71-heapscale.sh)."""
import os
import sys
import time

out = sys.argv[1]
argv = sys.argv[3:] if sys.argv[2] == '--' else sys.argv[2:]
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    fd = os.open(out + '.err', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 2)
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
wall = time.monotonic() - t0
print(f'{ru.ru_utime + ru.ru_stime:.3f} {ru.ru_maxrss} {wall:.3f}')
sys.exit(os.waitstatus_to_exitcode(status))
