#!/usr/bin/env python3
# heaprows.py — docs/benchmarks.md "Issue 20's heap rows, fifteenth pass":
# the CPU (user + system, getrusage of the children) of
#   tally record [-H] -F {0,1000,4000} -o hr.exp -- heapmix 3000000 2
# the six configurations interleaved in each of ROUNDS rounds; prints each
# run, then the medians in seconds.  Not a bench/run.sh section: no target,
# and at nice 0, as those figures were taken.
#   python3 bench/heaprows.py TALLY [ROUNDS]      (ROUNDS: 5)
# Builds tests/progs/heapmix.c and runs in a temporary directory.
import os, resource, shutil, statistics, subprocess, sys, tempfile

tally = os.path.abspath(sys.argv[1])
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
progs = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'progs')
os.chdir(tempfile.mkdtemp(prefix='heaprows.'))
subprocess.run(['cc', '-O2', '-g', '-pthread', '-I' + progs, '-o', 'heapmix',
                os.path.join(progs, 'heapmix.c')], check=True)
configs = [(heap, hz) for hz in (0, 1000, 4000) for heap in (False, True)]
cpu = {c: [] for c in configs}
for r in range(rounds):
    for heap, hz in configs:
        shutil.rmtree('hr.exp', ignore_errors=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([tally, 'record'] + (['-H'] if heap else []) + ['-F', str(hz), '-o', 'hr.exp', '--',
                       './heapmix', '3000000', '2'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        cpu[(heap, hz)].append(used)
        print('round %d %s -F %d: %.3f s' % (r + 1, '-H' if heap else '  ', hz, used), flush=True)
shutil.rmtree(os.getcwd(), ignore_errors=True)
for hz in (0, 1000, 4000):
    print('-F %d: without -H %.3f, with -H %.3f' % (hz, statistics.median(cpu[(False, hz)]),
                                                   statistics.median(cpu[(True, hz)])))
