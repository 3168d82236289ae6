#!/bin/sh
# slurm_cluster.sh — a single-machine Slurm cluster for the tests, from
# Debian's packages (slurm-wlm, munge): its own munged, slurmctld and slurmd,
# every file of theirs in one directory, unprivileged ports found free, so
# that several can run side by side and a directory can be started again
# (stale state, pid files and sockets from the last run).
#
#   slurm_cluster.sh start DIR   exit 0: running; DIR/slurm.conf is the
#                                configuration (export SLURM_CONF=DIR/slurm.conf)
#                                exit 77: cannot run here; why on stdout, one line
#                                (packages missing, not root, a daemon would not start)
#                                any other: failed; the daemons' logs on stdout
#   slurm_cluster.sh stop DIR    stop the daemons DIR's start began, by their
#                                pids (checked to be that DIR's), TERM then KILL
#
# One node, this machine's short host name at 127.0.0.1, CPUs=2 (tests ask
# for more tasks with srun/sbatch -O); authentication by munge on its own
# socket and key in DIR; proctrack/linuxproc and task/none (no cgroups);
# the tasks run as the user who runs the test (root: slurmd starts tasks as
# their user, which only root can).  Used by tests/e2e/test_slurm.sh.
set -u

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 64; }

# stop_pid NAME: end the daemon whose pid is in DIR/NAME.pid, if it is still
# one of DIR's (its command line names DIR), and wait for it (10 s, then KILL).
stop_pid() {
	f=$dir/$1.pid
	[ -s "$f" ] || return 0
	pid=$(cat "$f")
	rm -f "$f"
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$dir/" || return 0
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || return 0
		# A zombie (its parent has not waited yet) has ended.
		grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	return 0
}

if [ "$cmd" = stop ]; then
	stop_pid slurmd
	stop_pid slurmctld
	stop_pid munged
	exit 0
fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 64; }

for p in slurmctld slurmd munged srun sbatch scontrol sinfo; do
	command -v $p >/dev/null 2>&1 || { echo "no $p (apt-get install slurm-wlm munge)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "slurmd starts tasks as their user: it needs root"; exit 77; }
plugins=$(dirname "$(command -v slurmctld)")/../lib/$(uname -m)-linux-gnu/slurm-wlm
[ -d "$plugins" ] && [ ! -f "$plugins/auth_munge.so" ] && { echo "no Slurm auth/munge plugin in $plugins"; exit 77; }

dir=$(mkdir -p "$dir" && cd "$dir" && pwd) || exit 2
host=$(hostname -s)
mkdir -p "$dir/state" "$dir/spool/$host" "$dir/log" "$dir/munge" || exit 2
chmod 711 "$dir/munge"
# Stale daemons of an earlier start in this directory go first.
sh "$0" stop "$dir"

# Two free TCP ports (the kernel's choice, released at once: taken in between
# only by a race, which the daemons' start then reports).
ports=$(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))') || { echo "cannot find free ports"; exit 77; }
set -- $ports
ctld_port=$1 slurmd_port=$2

# munge: its own key and socket; --force because DIR's parents (/tmp) may be
# writable by others, which munged otherwise refuses.
[ -s "$dir/munge/munge.key" ] || {
	dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null && chmod 600 "$dir/munge/munge.key"
} || exit 2
sock=$dir/munge/munge.sock
rm -f "$sock"
munged -F --force --socket="$sock" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.run.pid" \
	--seed-file="$dir/munge/seed" >"$dir/log/munged.log" 2>&1 &
echo $! >"$dir/munged.pid"
for i in $(seq 50); do
	[ -S "$sock" ] && munge -S "$sock" -n </dev/null 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1 && break
	sleep 0.1
done
[ -S "$sock" ] || { echo "munged would not start: $(tail -n 1 "$dir/log/munged.log")"; sh "$0" stop "$dir"; exit 77; }

cat >"$dir/slurm.conf" <<EOF
# Written by tests/e2e/slurm_cluster.sh: a one-node test cluster in $dir.
ClusterName=tallytest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.run.pid
SlurmdPidFile=$dir/slurmd.run.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
InactiveLimit=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
EOF
export SLURM_CONF=$dir/slurm.conf
# -D: in the foreground, so that $! is the daemon's pid; -i: ignore state
# that does not match this configuration (a restart after a change).
slurmctld -D -i -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 &
echo $! >"$dir/slurmctld.pid"
slurmd -D -N "$host" -f "$SLURM_CONF" >"$dir/log/slurmd.out" 2>&1 &
echo $! >"$dir/slurmd.pid"
# Up when the node is idle (the controller heard from slurmd): 30 s at most.
for i in $(seq 150); do
	state=$(sinfo -h -n "$host" -o %T 2>/dev/null)
	case $state in idle*) exit 0 ;; esac
	for d in slurmctld slurmd; do
		kill -0 "$(cat "$dir/$d.pid")" 2>/dev/null && continue
		echo "$d would not start: $(grep -i -m 1 'error\|fatal' "$dir/log/$d.out" "$dir/log/$d.log" 2>/dev/null | tail -n 1)"
		sh "$0" stop "$dir"
		exit 77
	done
	sleep 0.2
done
echo "the node did not become idle in 30 s (state: ${state:-none}); logs in $dir/log:"
tail -n 5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" 2>/dev/null
sh "$0" stop "$dir"
exit 1
