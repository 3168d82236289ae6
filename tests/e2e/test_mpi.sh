# test_mpi.sh — MPI jobs on Open MPI (docs/mpi.md): real jobs of 4 ranks
# with `mpirun --oversubscribe -np 4` on this small machine, recorded both
# ways (`mpirun ... tally record` and `tally record -- mpirun ...`):
# a known imbalance (work 1:1:1:3) in --ranks and the others' waits in
# MPI_Barrier and MPI_Wait; rank r sending (r+1) MiB, exact in
# mpi.bytes.sent by sending stack and in --messages; the same result from
# both recording forms; the launcher's job, size and host in each rank's
# log and in --ranks; the job's time axis (a process per rank in the chrome
# export and the HTML timeline, MPI calls as intervals); Fortran's bindings (use mpi, use mpi_f08); a rank
# killed with SIGKILL mid-job; the tracer loading where there is no MPI;
# and a generated job of 300 ranks read in one pass.
. "$(dirname "$0")/lib.sh"
cd "$T"
BUILDDIR=${TALLY_BUILD:-$(dirname "$TALLY")/..}
LIB=$BUILDDIR/lib
W="python3 $E2E/weight.py"
CHECK="python3 $E2E/mpi_check.py"
ALL="imbalance_split waits_in_barrier_and_wait work_function_by_rank timeline_per_rank bytes_by_sending_stack
bytes_per_rank messages_match_pattern clock_measured_twice clock_drift_applied recording_forms_agree job_metadata launcher_left_out fortran_bindings
sigkill_rank_readable untracked_requests_counted tracer_loads_without_mpi rank_option_errors generated_job_of_300_ranks"

skip_all() {
	for t in $ALL; do skip "mpi_$t" "$1"; done
	exit 0
}
[ -f "$LIB/libtally-mpi.so" ] || skip_all "libtally-mpi.so not built (no mpi.h: apt-get install libopenmpi-dev)"
command -v mpirun >/dev/null && command -v mpicc >/dev/null || skip_all "no mpirun/mpicc (openmpi-bin)"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN="timeout 120 mpirun --oversubscribe -np 4"
mpicc -O2 -g -o mpi_work "$PROGS/mpi_work.c" || skip_all "mpicc cannot build tests/progs/mpi_work.c"

# Work 1:1:1:3 (units of 60 ms of CPU), twice: the ranks meet in MPI_Barrier,
# then ranks 0-2 wait for rank 3 in MPI_Wait.  The split of CPU outside MPI
# is the one each rank measured itself: besides work() it holds the ranks'
# fixed costs (start-up, the MPI library's threads), which a loaded machine
# makes larger (rank 3's share 0.47 where the work alone is 0.5).
$MPIRUN "$TALLY" record -m -o imb.exp -- ./mpi_work imbalance 60 >imb.out 2>&1
"$TALLY" report imb.exp --ranks --format json >imb.json 2>imb.err
check mpi_imbalance_split $CHECK imb.json "ranks 4" "measured imb.out 0.03" "slowest 3"
# Waits: ranks 0-2 spend 4 units (240 ms) less CPU outside MPI than rank 3
# and wait for it in MPI_Barrier and MPI_Wait.  Each rank's time in them
# (mpi.time) is the wall time the program measured around them ("waited
# R NS"), within 5% or 5 ms (under load a rank's own work stretches too,
# so no fixed share of the 240 ms is sure).
for r in 0 1 2 3; do
	"$TALLY" export imb.exp --rank $r --format collapsed --metric mpi.time >w$r.txt 2>/dev/null
	echo $(($($W w$r.txt MPI_Barrier) + $($W w$r.txt wait_for_last\;MPI_Wait))) >wait$r
done
check mpi_waits_in_barrier_and_wait sh -c '
	for r in 0 1 2 3; do
		want=$(awk -v r=$r '"'"'$1 == "waited" && $2 == r {print $3}'"'"' imb.out) && echo "rank $r tally $(cat wait$r) program $want" &&
		python3 -c "import sys; t, w = int(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(t - w) > max(0.05 * w, 5e6))" $(cat wait$r) "$want" || exit 1
	done &&
	'"$CHECK"' imb.json "top 0 MPI_Barrier|MPI_Wait" "top 1 MPI_Barrier|MPI_Wait" "top 2 MPI_Barrier|MPI_Wait"'
# Each rank's own profile (--rank) holds its CPU in work(): split 1:1:1:3,
# exactly the CPU time work() burns (it reads its thread's clock).
for r in 0 1 2 3; do
	"$TALLY" export imb.exp --rank $r --format collapsed 2>/dev/null |
		awk -v r=$r '/(^|;)work[.a-z0-9]*(;| )/ {s += $NF} END {print r, s}'
done | awk '{w[$1] = $2; t += $2} END {for (r in w) print r, w[r] / t}' >work.txt
check mpi_work_function_by_rank python3 -c '
w = dict(l.split() for l in open("work.txt"))
got = [round(float(w.get(str(r), 0)), 3) for r in range(4)]
print("work shares", got)
assert all(abs(g - s / 6) <= 0.03 for g, s in zip(got, (1, 1, 1, 3)))'
# The time axis: a process per rank, labelled with it, MPI calls as intervals
# adding up to each rank's MPI time.
check mpi_timeline_per_rank sh -c '
	"$TALLY" export imb.exp --format chrome -o imb.trace.json && "$TALLY" html imb.exp -o imb.html &&
	python3 "$E2E/mpi_timeline.py" imb.trace.json imb.html imb.json'

# Rank r sends (r+1) MiB to rank r+1 from send_bytes(), and r 8-byte tokens
# to rank 0 from send_tokens().
$MPIRUN "$TALLY" record -m -o f1.exp -- ./mpi_work bytes >f1.out 2>&1
"$TALLY" export f1.exp --format collapsed --metric mpi.bytes.sent >sent.txt 2>/dev/null
check mpi_bytes_by_sending_stack sh -c "
	test \$($W sent.txt send_bytes\\;MPI_Send) -eq 10485760 && test \$($W sent.txt send_tokens\\;MPI_Send) -eq 48 &&
	test \$($W sent.txt MPI_Allreduce) -eq 64"
check mpi_bytes_per_rank sh -c "
	for r in 0 1 2 3; do
		\"\$TALLY\" export f1.exp --rank \$r --format collapsed --metric mpi.bytes.sent >s\$r.txt 2>/dev/null &&
		test \$($W s\$r.txt send_bytes\\;MPI_Send) -eq \$(((r + 1) * 1048576)) || exit 1
	done
	\"\$TALLY\" report f1.exp --ranks --format json >f1.json && $CHECK f1.json 'recv 1 1048592' 'recv 0 4194368'"
# what `mpi_work bytes` sends (tests/progs/mpi_work.c): one table for
# every test that runs it
cp "$E2E/mpi_work_bytes.messages" messages.want
"$TALLY" report f1.exp --messages --format csv >messages1.csv 2>/dev/null
check mpi_messages_match_pattern diff messages.want messages1.csv

# Time across hosts (docs/mpi.md): each rank measured its clock's offset
# from rank 0's after MPI_Init and again before MPI_Finalize.  The ranks of
# this job share one clock, so the two agree within their round trips' errors
# (a few microseconds more for the collector's clock, src/collector/col_time.c).
check mpi_clock_measured_twice python3 -c '
for r in (1, 2, 3):
    log = dict(l.rstrip("\n").split(": ", 1) for l in open("f1.exp/rank%d.exp/log.txt" % r) if ": " in l)
    k = {x: int(log["mpi.clock.%s_ns" % x]) for x in ("offset", "rtt", "at", "end.offset", "end.rtt", "end.at")}
    print(r, k)
    assert k["end.at"] > k["at"] and k["rtt"] > 0 and k["end.rtt"] > 0, k
    assert abs(k["end.offset"] - k["offset"]) <= (k["rtt"] + k["end.rtt"]) / 2 + 20000, k'
# A drifting clock cannot be made on one machine (a time namespace shifts a
# clock, never changes its rate), so rank 3's log is edited in two copies of
# the job: in one its offset stayed put, in the other it grew by 2 ms, or
# by twice its round trips under load (a change within the round trips'
# errors is no drift), or by half the time between the measurements (the
# job's messages come early in it: under load MPI_Finalize comes late).  The drift is applied on the time axis
# (the chrome export) and in the message matching as the rule says
# (tests/e2e/mpi_drift.py).
check mpi_clock_drift_applied sh -c '
	for c in base drift; do cp -r f1.exp $c.exp || exit 1; done
	python3 -c "
import re
for c in (\"base\", \"drift\"):
    p = c + \".exp/rank3.exp/log.txt\"
    s = open(p).read()
    k = {x: int(re.search(r\"^mpi.clock.%s_ns: (-?[0-9]+)\$\" % x, s, re.M).group(1))
         for x in (\"offset\", \"rtt\", \"end.rtt\", \"at\", \"end.at\")}
    d = max(2000000, 2 * (k[\"rtt\"] + k[\"end.rtt\"]), (k[\"end.at\"] - k[\"at\"]) // 2)
    off, d = k[\"offset\"], 0 if c == \"base\" else d
    s, n = re.subn(r\"^mpi.clock.end.offset_ns: -?[0-9]+\$\", \"mpi.clock.end.offset_ns: %d\" % (off + d), s, flags=re.M)
    assert n == 1, p
    open(p, \"w\").write(s)" &&
	for c in base drift; do
		"$TALLY" export $c.exp --format chrome -o $c.exp.trace.json &&
		"$TALLY" report $c.exp --messages --format json >$c.exp.messages.json || exit 1
	done &&
	python3 "$E2E/mpi_drift.py" base.exp drift.exp 3'

# The same job recorded around the launcher: the same ranks, calls, bytes.
timeout 120 "$TALLY" record -m -o f2.exp -- mpirun --oversubscribe -np 4 ./mpi_work bytes >f2.out 2>&1
"$TALLY" report f2.exp --messages --format csv >messages2.csv 2>/dev/null
"$TALLY" report f2.exp --ranks --format json >f2.json 2>/dev/null
"$TALLY" export f2.exp --format collapsed --metric mpi.bytes.sent 2>/dev/null | sort >sent2.txt
check mpi_recording_forms_agree sh -c "
	diff messages1.csv messages2.csv && sort sent.txt | diff - sent2.txt &&
	python3 -c '
import json, sys
a, b = (json.load(open(f))[\"ranks\"] for f in (\"f1.json\", \"f2.json\"))
keys = (\"rank\", \"mpi_calls\", \"bytes_sent\", \"bytes_recv\")
sys.exit([[r[k] for k in keys] for r in a] != [[r[k] for k in keys] for r in b])'"
# Each rank's log has Open MPI's job: its job id (the same in every rank),
# size 4 and this host; --ranks shows them, the overview too.
check mpi_job_metadata python3 -c '
import json, os, subprocess, sys
host = os.uname().nodename
for exp in ("f1.exp", "f2.exp"):
    ids = set()
    for r in range(4):
        log = dict(l.split(": ", 1) for l in open("%s/rank%d.exp/log.txt" % (exp, r)).read().splitlines() if ": " in l)
        assert log["job.launcher"] == "openmpi" and log["job.size"] == "4" and log["job.host"] == host, (exp, r, log)
        assert log["rank"] == str(r), (exp, r, log)
        ids.add(log["job.id"])
    assert len(ids) == 1 and ids != {""}, (exp, ids)
    j = json.load(open(exp.replace(".exp", ".json")))
    assert [x["host"] for x in j["ranks"]] == [host] * 4, j["ranks"]
    assert [x["job"] for x in j["ranks"]] == list(ids) * 4, (j["ranks"], ids)
    assert j["imbalance"]["job"].startswith("openmpi job %s (size 4)" % ids.pop()), j["imbalance"]
    assert j["imbalance"]["hosts"] == 1, j["imbalance"]
o = subprocess.run([os.environ["TALLY"], "report", "f1.exp"], capture_output=True, text=True).stdout
assert "Hosts              1: %s (4 ranks)" % host in o, o'
check mpi_launcher_left_out sh -c "
	test -f f2.exp/log.txt && test -d f2.exp/rank3.exp && grep -q '^created-by: launcher' f2.exp/rank0.exp/log.txt &&
	\"\$TALLY\" report f2.exp --processes >procs.txt 2>/dev/null && grep -q '^ *[0-9.]* *[0-9.]* *[0-9]* *[0-9]* *launcher ' procs.txt &&
	grep -q 'rank3 ' procs.txt && \"\$TALLY\" report f2.exp --ranks | grep -q 'processes left out (the launcher'"

# Fortran: `use mpi` (mpi_send_) from send_old, `use mpi_f08` (mpi_send_f08_)
# from send_new: rank r sends (r+1) x 1000 and (r+1) x 2000 integers.
if command -v mpifort >/dev/null && mpifort -O1 -g -o mpi_ftn "$PROGS/mpi_ftn.f90" 2>ftn.err; then
	$MPIRUN "$TALLY" record -m -o ftn.exp -- ./mpi_ftn >ftn.out 2>&1
	"$TALLY" export ftn.exp --format collapsed --metric mpi.bytes.sent >fsent.txt 2>/dev/null
	"$TALLY" report ftn.exp --messages --format csv >fmsg.csv 2>/dev/null
	check mpi_fortran_bindings sh -c "
		test \$($W fsent.txt send_old_\\;MPI_Send) -eq 40000 && test \$($W fsent.txt send_new_\\;MPI_Send) -eq 80000 &&
		test \$(grep -c ',2,' fmsg.csv) -eq 4 && grep -q '^3,0,48000,2,' fmsg.csv &&
		\"\$TALLY\" export ftn.exp --format collapsed --metric mpi.count 2>/dev/null | grep -q 'send_new_;MPI_Wait 4\$' &&
		\"\$TALLY\" export ftn.exp --format collapsed --metric mpi.count 2>/dev/null | grep -q 'send_old_;MPI_Barrier 4\$'"
else
	skip mpi_fortran_bindings "mpifort cannot build tests/progs/mpi_ftn.f90"
fi

# Rank 2 killed with SIGKILL after 50 rounds: every rank's experiment reads,
# rank 2's up to the kill.
$MPIRUN "$TALLY" record -m -o kill.exp -- ./mpi_work victim "$T/victim.pid" >kill.out 2>&1 &
job=$!
for i in $(seq 300); do [ -s victim.pid ] && break; sleep 0.1; done
sleep 0.3
[ -s victim.pid ] && kill -KILL "$(cat victim.pid)"
wait $job
check mpi_sigkill_rank_readable sh -c "
	\"\$TALLY\" report kill.exp --ranks >kill.txt 2>&1 && grep -q 'rank 2 killed by signal 9' kill.txt &&
	\"\$TALLY\" report kill.exp --ranks --format json >kill.json 2>/dev/null && $CHECK kill.json 'ranks 4' &&
	python3 -c '
import json
r = {x[\"rank\"]: x for x in json.load(open(\"kill.json\"))[\"ranks\"]}
assert all(r[k][\"mpi_calls\"] > 50 and r[k][\"cpu\"] > 0 for k in range(4)), r'"

# Completions of requests the tracer did not see start (persistent ones) are
# counted, never silently peerless.  Without -o, the ranks agree on one
# directory named after the launcher's job id.
mkdir noo && (cd noo && timeout 120 mpirun --oversubscribe -np 2 "$TALLY" record -m -- ../mpi_work persistent >../pers.out 2>&1)
check mpi_untracked_requests_counted sh -c "
	test \$(ls noo | wc -l) -eq 1 && test -d noo/tally.job.*.exp/rank1.exp &&
	\"\$TALLY\" report noo/tally.job.*.exp --format json --metric mpi.count | python3 -c '
import json, sys
o = json.load(sys.stdin)[\"overview\"]
assert o[\"mpi.untracked-requests\"] == 6, o'"

# Preloaded where there is no MPI (the launcher, shells), even binding every
# symbol at once: the tracer links no libmpi and refers to its data weakly.
check mpi_tracer_loads_without_mpi env LD_BIND_NOW=1 LD_PRELOAD="$LIB/libtally-collector.so $LIB/libtally-mpi.so" true

mkdir nompi && ln -s "$LIB/libtally-collector.so" "$LIB/libtally-mcount.so" nompi/
check mpi_rank_option_errors sh -c "
	! \"\$TALLY\" report f1.exp --rank 7 2>e1 && grep -q 'no such rank in the job (ranks 0-3)' e1 &&
	! \"\$TALLY\" report f1.exp/rank1.exp --rank 1 2>e2 && grep -q 'not an MPI job' e2 &&
	\"\$TALLY\" report f1.exp --rank 2 --ranks --format json >r2.json 2>/dev/null &&
	$CHECK r2.json 'ranks 1' 'sent 2 3145760' &&
	! TALLY_LIB_DIR=\$PWD/nompi \"\$TALLY\" record -m -o x.exp true 2>e3 && grep -q -- '-m: .*libopenmpi-dev' e3"

# 300 ranks written by jobgen: every rank read (--ranks=all), totals exact;
# --ranks alone summarises: the slowest, quartiles and fastest are the
# ranks at those places of --ranks=all's rows ordered by CPU outside MPI.
"$BUILDDIR/tests/jobgen" gen.exp 300 300 >gen.txt
check mpi_generated_job_of_300_ranks sh -c "
	\"\$TALLY\" report gen.exp --ranks=all --format json >gen.json && $CHECK gen.json 'ranks 300' 'slowest 3' &&
	\"\$TALLY\" report gen.exp --ranks --format json >sum.json && python3 -c '
import json
rows = json.load(open(\"gen.json\"))[\"ranks\"]
s = json.load(open(\"sum.json\"))
assert \"ranks\" not in s and s[\"imbalance\"][\"slowest_rank\"] == 3, s.keys()
by = sorted(rows, key=lambda r: (r[\"cpu_outside_mpi\"], r[\"rank\"]))
top = min(r[\"rank\"] for r in rows if r[\"cpu_outside_mpi\"] == by[-1][\"cpu_outside_mpi\"])
want = [(\"slowest\", top)] + [(a, by[int(299 * q)][\"rank\"]) for a, q in ((\"75%\", .75), (\"median\", .5), (\"25%\", .25), (\"fastest\", 0))]
got = [(r[\"at\"], r[\"rank\"]) for r in s[\"ranks_summary\"]]
assert got == want, (got, want)
full = {r[\"rank\"]: r for r in rows}
assert all(dict(r, at=None) == dict(full[r[\"rank\"]], at=None) for r in s[\"ranks_summary\"])' &&
	python3 -c '
import json
o = json.load(open(\"gen.json\"))[\"overview\"]
_, _, _, cpu, _, sent, _, mpi = open(\"gen.txt\").read().split()
assert round(o[\"sampled_cpu_s\"] * 1e9) == int(cpu), (o, cpu)
assert o[\"mpi.bytes.sent\"] == int(sent) and round(o[\"mpi.time\"] * 1e9) == int(mpi), (o, sent, mpi)'"
