# test_slurm.sh — MPI jobs under Slurm for real (docs/mpi.md): a one-node
# cluster of Debian's slurm-wlm and munge started by tests/e2e/slurm_cluster.sh
# in the test's directory, and tests/progs/mpi_work.c run as 4 tasks of
# `srun --mpi=pmix` (Open MPI over Slurm's PMIx), recorded three ways:
# `srun tally record`, `tally record -- srun` and an sbatch script running
# `srun tally record`.  Each gives one job experiment with a known imbalance
# (work 1:1:1:3) or known bytes (rank r sends (r+1) MiB to r+1), exact in
# --ranks and --messages; each rank's experiment and --ranks carry Slurm's
# job id, step, node name and task rank.  Then the cluster is stopped and
# started again in the same directory (stale state, pid files, sockets) and
# takes a job again.  Skipped, with the reason, where the cluster cannot
# start (packages missing, not root, a daemon refusing).
. "$(dirname "$0")/lib.sh"
cd "$T"
BUILDDIR=${TALLY_BUILD:-$(dirname "$TALLY")/..}
CHECK="python3 $E2E/mpi_check.py"
CLUSTER="sh $E2E/slurm_cluster.sh"
ALL="cluster_starts srun_imbalance srun_job_metadata srun_messages_exact around_srun_messages_exact
around_srun_launcher_left_out sbatch_messages_exact sbatch_job_metadata restart_takes_a_job"

skip_all() {
	for t in $ALL; do skip "slurm_$t" "$1"; done
	exit 0
}
[ -f "$BUILDDIR/lib/libtally-mpi.so" ] || skip_all "libtally-mpi.so not built (no mpi.h: apt-get install libopenmpi-dev)"
command -v mpicc >/dev/null || skip_all "no mpicc (libopenmpi-dev)"
mpicc -O2 -g -o mpi_work "$PROGS/mpi_work.c" || skip_all "mpicc cannot build tests/progs/mpi_work.c"
# The daemons are stopped however the test ends, then lib.sh's clean-up runs.
trap '$CLUSTER stop "$T/cluster"; for j in $(jobs -p); do kill -TERM "$j" 2>/dev/null; done; rm -rf "$T"' EXIT
why=$($CLUSTER start "$T/cluster")
case $? in
0) echo "[Success] slurm_cluster_starts" ;;
77) skip_all "$why" ;;
*) echo "[Failed] slurm_cluster_starts"; printf '%s\n' "$why" | sed 's/^/    /'; ALL=${ALL#cluster_starts}; skip_all "the cluster did not start" ;;
esac
export SLURM_CONF=$T/cluster/slurm.conf
NODE=$(hostname -s)
# -O: 4 tasks on the node's 2 CPUs; the time limit ends a stuck job.
SRUN="timeout 60 srun -O -n 4 --mpi=pmix"

# job_meta EXP JSON JOBID STEP: every rank's log and --ranks (JSON, its
# --format json) name Slurm, the job, its step, size 4, this node and the
# task's rank.
job_meta() {
	python3 - "$@" "$NODE" <<'EOF'
import json, sys
exp, ranks_json, job, step, node = sys.argv[1:]
for r in range(4):
    log = dict(l.split(": ", 1) for l in open("%s/rank%d.exp/log.txt" % (exp, r)).read().splitlines() if ": " in l)
    want = {"rank": str(r), "job.launcher": "slurm", "job.id": job, "job.step": step, "job.size": "4", "job.host": node}
    assert all(log.get(k) == v for k, v in want.items()), (r, {k: log.get(k) for k in want})
d = json.load(open(ranks_json))
assert [(x["rank"], x["job"], x["host"]) for x in d["ranks"]] == [(r, "%s.%s" % (job, step), node) for r in range(4)], d["ranks"]
assert d["imbalance"]["job"] == "slurm job %s step %s (size 4)" % (job, step), d["imbalance"]
print("ok", exp, job, step, node)
EOF
}
# job_of OUT: the job id srun or sbatch printed in OUT, with -v ("jobid N").
job_of() { sed -n 's/.*\(jobid\|job\) \([0-9][0-9]*\).*/\2/p' "$1" | head -n 1; }

# what `mpi_work bytes` sends (tests/progs/mpi_work.c): one table for
# every test that runs it
cp "$E2E/mpi_work_bytes.messages" messages.want

# srun tally record: work 1:1:1:3 (units of 60 ms of CPU); rank 3 the slowest.
$SRUN -v "$TALLY" record -m -o imb.exp -- ./mpi_work imbalance 60 >imb.out 2>&1
"$TALLY" report imb.exp --ranks --format json >imb.json 2>imb.err
check slurm_srun_imbalance $CHECK imb.json "ranks 4" "measured imb.out 0.03" "slowest 3"
check slurm_srun_job_metadata job_meta imb.exp imb.json "$(job_of imb.out)" 0

# Bytes: rank r sends (r+1) MiB to rank r+1 and r tokens of 8 bytes to rank 0.
$SRUN "$TALLY" record -m -o f1.exp -- ./mpi_work bytes >f1.out 2>&1
"$TALLY" report f1.exp --messages --format csv >messages1.csv 2>/dev/null
"$TALLY" report f1.exp --ranks --format json >f1.json 2>/dev/null
check slurm_srun_messages_exact sh -c "diff messages.want messages1.csv &&
	$CHECK f1.json 'ranks 4' 'sent 0 1048592' 'sent 3 4194344' 'recv 1 1048592' 'recv 0 4194368'"

# tally record -- srun: srun passes the collector's environment to the tasks
# slurmd starts; each becomes its rankN.exp; srun itself is left out.
timeout 60 "$TALLY" record -m -o f2.exp -- srun -v -O -n 4 --mpi=pmix ./mpi_work bytes >f2.out 2>&1
"$TALLY" report f2.exp --messages --format csv >messages2.csv 2>/dev/null
"$TALLY" report f2.exp --ranks --format json >f2.json 2>/dev/null
check slurm_around_srun_messages_exact sh -c "diff messages.want messages2.csv &&
	$CHECK f2.json 'ranks 4' 'sent 0 1048592' 'sent 3 4194344' 'recv 1 1048592' 'recv 0 4194368'"
check slurm_around_srun_launcher_left_out sh -c "
	test -f f2.exp/log.txt && grep -q '^created-by: launcher' f2.exp/rank0.exp/log.txt &&
	\"\$TALLY\" report f2.exp --ranks | grep -q 'processes left out (the launcher' &&
	python3 -c '
import json
d = json.load(open(\"f2.json\"))
assert [x[\"job\"] for x in d[\"ranks\"]] == [\"$(job_of f2.out).0\"] * 4, d[\"ranks\"]'"

# sbatch: a batch script whose step records itself; the job's id is the
# batch job's, the step its first.
cat >job.sh <<EOF
#!/bin/sh
srun -O -n 4 --mpi=pmix "$TALLY" record -m -o "$T/b.exp" -- "$T/mpi_work" bytes
EOF
# (Polled: sbatch -W polls every 10 s.)
bjob=$(sbatch --parsable -O -n 4 -o "$T/b.out" job.sh 2>sbatch.out)
for i in $(seq 300); do
	squeue -h -j "$bjob" 2>/dev/null | grep -q . || break
	sleep 0.2
done
scontrol show job "$bjob" 2>&1 | grep -o 'JobState=[A-Z_]*\|ExitCode=[0-9:]*' >>sbatch.out
"$TALLY" report b.exp --messages --format csv >messages3.csv 2>/dev/null
"$TALLY" report b.exp --ranks --format json >b.json 2>/dev/null
check slurm_sbatch_messages_exact sh -c "cat sbatch.out b.out; diff messages.want messages3.csv &&
	$CHECK b.json 'ranks 4' 'sent 2 3145760' 'recv 0 4194368'"
check slurm_sbatch_job_metadata job_meta b.exp b.json "$bjob" 0

# Stopped and started again in the same directory: the controller reads its
# saved state, the ports are new, the node comes back and takes a job whose
# id follows the last one.
$CLUSTER stop "$T/cluster"
why=$($CLUSTER start "$T/cluster")
rc=$?
timeout 60 srun -v -O -n 2 "$TALLY" record -o re.exp -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >re.out 2>&1
check slurm_restart_takes_a_job sh -c "echo '$why'; test $rc -eq 0 && test \$(ls -d re.exp/rank*.exp | wc -l) -eq 2 &&
	test $(job_of re.out) -gt $bjob && \"\$TALLY\" report re.exp --ranks | grep -q 'slurm job $(job_of re.out) step 0 (size 2)'"
