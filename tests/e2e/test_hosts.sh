# test_hosts.sh — an MPI job across two hosts (docs/mpi.md "Several hosts"):
# two test hosts made as namespaces on this machine by hosts.sh (own
# address, host name, private /tmp; tally-h2's CLOCK_MONOTONIC 1000 s
# ahead: behind could not be set on a machine up for less than 1000 s,
# the kernel refuses a negative clock), Open MPI launching 2 ranks on each over TCP through a launch
# agent that enters them.  Each host writes its ranks' experiments to its
# own /tmp; `tally gather` brings them together over the same agent, and
# refuses a partial job unless --partial.  Then the same numbers as on one
# host (test_mpi.sh): a known imbalance (work 1:1:1:3), exact bytes from
# rank to rank, each rank's host; and time: each rank's clock offset from
# rank 0, measured at MPI_Init, equals the one injected, within the
# measurement's own error (half its round trip).
. "$(dirname "$0")/lib.sh"
cd "$T"
BUILDDIR=${TALLY_BUILD:-$(dirname "$TALLY")/..}
LIB=$BUILDDIR/lib
CHECK="python3 $E2E/mpi_check.py"
ALL="hosts_gathered hosts_partial_refused hosts_partial_gathered hosts_imbalance_split hosts_messages_exact
hosts_names_shown hosts_clock_offset_measured hosts_timeline_aligned hosts_messages_in_order
hosts_gathered_from_directories hosts_chrome_arrows_forward hosts_gathered_over_ssh"

skip_all() {
	for t in $ALL; do skip "$t" "$1"; done
	exit 0
}
[ -f "$LIB/libtally-mpi.so" ] || skip_all "libtally-mpi.so not built (no mpi.h: apt-get install libopenmpi-dev)"
command -v mpirun >/dev/null && command -v mpicc >/dev/null || skip_all "no mpirun/mpicc (openmpi-bin)"
mpicc -O2 -g -o mpi_work "$PROGS/mpi_work.c" || skip_all "mpicc cannot build tests/progs/mpi_work.c"
trap 'for p in "$T"/ssh/*.pid; do [ -s "$p" ] && kill -TERM "$(cat "$p")" 2>/dev/null; done
	sh "$E2E/hosts.sh" down "$T/hosts"; for j in $(jobs -p); do kill -TERM "$j" 2>/dev/null; done; rm -rf "$T"' EXIT
SHIFT_S=1000
if ! why=$(sh "$E2E/hosts.sh" up "$T/hosts" tally-h1 tally-h2@$SHIFT_S); then
	# Without time namespaces the hosts share one clock: all but the check
	# that needs them apart still run.
	case $why in
	"no time namespaces"*) SHIFT_S=0 ;;
	*) skip_all "no test hosts: $why" ;;
	esac
	why=$(sh "$E2E/hosts.sh" up "$T/hosts" tally-h1 tally-h2) || skip_all "no test hosts: $why"
fi
AGENT=$T/hosts/agent
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NET=10.231.77.0/24

# mpirun_hosts EXP ARGS...: mpi_work ARGS as 4 ranks, 2 a host, started
# from tally-h1, each rank recorded into its host's /tmp/EXP.
mpirun_hosts() {
	exp=$1
	shift
	timeout 60 "$AGENT" tally-h1 "cd $T && mpirun --host tally-h1:2,tally-h2:2 --mca plm_rsh_agent $AGENT \
		--mca btl tcp,self --mca oob_tcp_if_include $NET --mca btl_tcp_if_include $NET \
		$TALLY record -m -o /tmp/$exp -- ./mpi_work $*"
}

mpirun_hosts imb.exp imbalance 120 >imb.out 2>&1
mpirun_hosts f1.exp bytes >f1.out 2>&1

# Gathered: each host's ranks from its own /tmp (nothing on this machine's).
"$TALLY" gather --rsh "$AGENT" -o imb.exp tally-h1:/tmp/imb.exp tally-h2:/tmp/imb.exp >g1.out 2>g1.err
"$TALLY" gather --rsh "$AGENT" -o f1.exp tally-h1:/tmp/f1.exp tally-h2:/tmp/f1.exp >g2.out 2>g2.err
check hosts_gathered sh -c '
	grep -qx "imb.exp: ranks 0-3 of 4; tally-h1: 0-1, tally-h2: 2-3" g1.out &&
	grep -qx "f1.exp: ranks 0-3 of 4; tally-h1: 0-1, tally-h2: 2-3" g2.out &&
	test -d f1.exp/rank3.exp && ! test -e /tmp/f1.exp/rank2.exp &&
	test "$('"$AGENT"' tally-h1 ls /tmp/f1.exp)" = "$(printf "rank0.exp\nrank1.exp")"'

# A host that is not there, or a directory that is not: refused, naming the
# missing ranks and why, and nothing written.
check hosts_partial_refused sh -c '
	! "$TALLY" gather --rsh "'"$AGENT"'" -o p.exp tally-h1:/tmp/f1.exp tally-h3:/tmp/f1.exp 2>p1.err &&
	grep -q "p.exp: ranks 2-3 of 4 missing" p1.err && grep -q "tally-h3:/tmp/f1.exp: agent: no test host tally-h3" p1.err &&
	! "$TALLY" gather --rsh "'"$AGENT"'" -o p.exp tally-h1:/tmp/f1.exp tally-h2:/tmp/nothing 2>p2.err &&
	grep -q "ranks 2-3 of 4 missing" p2.err && grep -q "tally-h2:/tmp/nothing: .*/tmp/nothing" p2.err &&
	test $(wc -l <p2.err) -eq 1 && ! test -e p.exp &&
	! "$TALLY" gather --rsh "'"$AGENT"'" -o f1.exp tally-h2:/tmp/f1.exp 2>p3.err &&
	grep -q "rank 2 is in both f1.exp and tally-h2:/tmp/f1.exp" p3.err'
check hosts_partial_gathered sh -c '
	"$TALLY" gather --partial --rsh "'"$AGENT"'" -o p.exp tally-h2:/tmp/f1.exp >p4.out 2>p4.err &&
	grep -q "warning: p.exp: ranks 0-1 of 4 missing (--partial" p4.err &&
	grep -qx "p.exp: ranks 2-3 of 4; tally-h2: 2-3" p4.out &&
	"$TALLY" report p.exp --ranks --format json >p.json && '"$CHECK"' p.json "ranks 2"'

# The numbers: as on one host (units of 120 ms of CPU: the ranks' fixed
# costs outside MPI, start-up and page faults, weigh less on a loaded machine).
"$TALLY" report imb.exp --ranks --format json >imb.json 2>imb.err
check hosts_imbalance_split $CHECK imb.json "ranks 4" "measured imb.out 0.03" "slowest 3"
# what `mpi_work bytes` sends (tests/progs/mpi_work.c): one table for
# every test that runs it
cp "$E2E/mpi_work_bytes.messages" messages.want
"$TALLY" report f1.exp --messages --format csv >messages.csv 2>/dev/null
check hosts_messages_exact diff messages.want messages.csv
"$TALLY" report f1.exp --ranks --format json >f1.json 2>/dev/null
check hosts_names_shown python3 -c '
import json
r = {x["rank"]: x for x in json.load(open("f1.json"))["ranks"]}
assert [r[k]["host"] for k in range(4)] == ["tally-h1"] * 2 + ["tally-h2"] * 2, r
assert [r[k]["bytes_sent"] for k in range(4)] == [1048592, 2097176, 3145760, 4194344], r'

# Time: the offset of each rank's clock from rank 0's, measured in MPI_Init
# (log: mpi.clock.offset_ns, within half of mpi.clock.rtt_ns), is the one
# hosts.sh gave tally-h2 (rank 0's host: none); a few microseconds more for
# the collector's clock (the TSC, kept on CLOCK_MONOTONIC, src/collector/col_time.c).
check hosts_clock_offset_measured python3 -c '
import sys
for exp in ("imb.exp", "f1.exp"):
    for rank, want in ((1, 0), (2, -('$SHIFT_S') * 10**9), (3, -('$SHIFT_S') * 10**9)):
        log = dict(l.rstrip("\n").split(": ", 1) for l in open("%s/rank%d.exp/log.txt" % (exp, rank)) if ": " in l)
        off, rtt = int(log["mpi.clock.offset_ns"]), int(log["mpi.clock.rtt_ns"])
        print(exp, rank, off, rtt)
        assert abs(off - want) <= rtt / 2 + 20000, (exp, rank, off - want, rtt)'

# The time axis: with each rank's offset applied, the job's ranks share one
# (tally-h2's events are not 1000 s before tally-h1's): the chrome export
# spans no more than twice the longest rank's own wall time (its log).
check hosts_timeline_aligned sh -c '
	"$TALLY" export f1.exp --format chrome -o f1.trace.json && python3 -c "
import json
ev = json.load(open(\"f1.trace.json\"))
ev = ev[\"traceEvents\"] if isinstance(ev, dict) else ev
ts = {}
for e in ev:
    if \"ts\" in e and e.get(\"ph\") != \"M\":
        ts.setdefault(e[\"pid\"], []).append(e[\"ts\"])
wall = max(int(dict(l.rstrip(\"\\n\").split(\": \", 1) for l in open(\"f1.exp/rank%d.exp/log.txt\" % r) if \": \" in l)[\"wall_ns\"]) for r in range(4))
span = max(max(v) for v in ts.values()) - min(min(v) for v in ts.values())
print(len(ts), \"processes, span\", span, \"us, longest rank\", wall // 1000, \"us\")
assert len(ts) == 4 and span * 1000 <= 2 * wall, (span, wall)"'

# The chrome export draws each matched message as a flow from its send to
# its receive: 10 of them, none going back in time.
check hosts_chrome_arrows_forward python3 -c '
import json
ev = json.load(open("f1.trace.json"))["traceEvents"]
s = {e["id"]: e["ts"] for e in ev if e["ph"] == "s"}
f = {e["id"]: e["ts"] for e in ev if e["ph"] == "f"}
assert len(s) == 10 and s.keys() == f.keys() and all(f[k] >= s[k] for k in s), (s, f)'

# Message matching: each of the job's 10 point-to-point messages matched
# send to receive; on rank 0's clock none is received before it is sent.
# On each rank's own clock (--raw-clocks) tally-h1's receives of
# tally-h2's sends end about 1000 s before they started:
# between 1000 s less the longest rank's wall time, and 1000 s.
"$TALLY" report f1.exp --messages --format json >m.json 2>/dev/null
"$TALLY" report f1.exp --messages --format json --raw-clocks >mraw.json 2>/dev/null
if [ "$SHIFT_S" = 0 ]; then
	skip hosts_messages_in_order "no time namespaces (Linux >= 5.6) to set a host's clock apart"
else check hosts_messages_in_order python3 -c '
import json
m, raw = (json.load(open(f))["matching"] for f in ("m.json", "mraw.json"))
wall = max(int(dict(l.rstrip("\n").split(": ", 1) for l in open("f1.exp/rank%d.exp/log.txt" % r) if ": " in l)["wall_ns"]) for r in range(4))
shift = abs('$SHIFT_S') * 10**9
print(m, raw, wall)
assert m["matched"] == 10 and m["unmatched"] == 0 and m["received_before_sent"] == 0, m
assert raw["matched"] == 10 and raw["received_before_sent"] >= 1, raw
assert shift - wall <= raw["worst_ns"] <= shift, (raw, wall)'
fi

# A DIR source (a shared file system): the gathering host's own ranks
# already in JOB (a), the others' from a directory this machine sees (b).
mkdir a b && cp -r f1.exp/rank0.exp f1.exp/rank1.exp a/ && cp -r f1.exp/rank2.exp f1.exp/rank3.exp b/
check hosts_gathered_from_directories sh -c '
	"$TALLY" gather -o a b >d.out 2>d.err && grep -qx "a: ranks 0-3 of 4; tally-h1: 0-1, tally-h2: 2-3" d.out &&
	test -d b/rank2.exp && "$TALLY" report a --messages --format csv 2>/dev/null | diff messages.want -'

# Over ssh, as on real hosts (the default way of `tally gather`): an ssh
# server on each test host (dropbear, started here and stopped by pid; root's
# home there is a directory of this test's, holding the key it allows, so
# nothing of this machine's is changed), OpenSSH's ssh as the client, run on
# tally-h1; the same job as through the launch agent.
if ! command -v dropbear >/dev/null || ! command -v dropbearkey >/dev/null || ! command -v ssh-keygen >/dev/null; then
	skip hosts_gathered_over_ssh "no ssh server or client (dropbear-bin, openssh-client)"
else
	S=$T/ssh
	mkdir -p "$S/home/.ssh" && chmod 700 "$S" "$S/home" "$S/home/.ssh"
	dropbearkey -t ed25519 -f "$S/host_key" >/dev/null 2>&1 && ssh-keygen -q -t ed25519 -N "" -f "$S/id" &&
		cp "$S/id.pub" "$S/home/.ssh/authorized_keys" && chmod 600 "$S/home/.ssh/authorized_keys"
	echo "[tally-h1]:2222,[tally-h2]:2222 $(dropbearkey -y -f "$S/host_key" | grep '^ssh-')" >"$S/known_hosts"
	printf 'Host tally-h1 tally-h2\n\tPort 2222\n\tUser root\n\tIdentityFile %s/id\n\tIdentitiesOnly yes\n\tUserKnownHostsFile %s/known_hosts\n\tStrictHostKeyChecking yes\n\tBatchMode yes\n\tLogLevel ERROR\n' \
		"$S" "$S" >"$S/config"
	n=0
	for h in 1 2; do
		"$AGENT" tally-h$h "mount --bind $S/home /root && dropbear -s -r $S/host_key -p 10.231.77.$h:2222 -P $S/h$h.pid" \
			>"$S/h$h.err" 2>&1 && n=$((n + 1))
	done
	for i in $(seq 50); do [ -s "$S/h1.pid" ] && [ -s "$S/h2.pid" ] && break; sleep 0.1; done
	if [ $n -ne 2 ] || ! "$AGENT" tally-h1 "ssh -F $S/config tally-h2 true" 2>"$S/try.err"; then
		skip hosts_gathered_over_ssh "no ssh server on the test hosts: $(cat "$S"/h*.err "$S/try.err" | head -n 1)"
	else
		RSH="ssh -F $S/config"
		"$AGENT" tally-h1 "cd $T && TALLY_RSH='$RSH' $TALLY gather -o ssh.exp tally-h1:/tmp/f1.exp tally-h2:/tmp/f1.exp" \
			>s.out 2>s.err
		"$AGENT" tally-h1 "cd $T && $TALLY gather --rsh '$RSH' -o none.exp tally-h1:/tmp/f1.exp tally-h2:/tmp/nothing" \
			>n.out 2>n.err
		check hosts_gathered_over_ssh sh -c '
			cat s.err n.err; grep -qx "ssh.exp: ranks 0-3 of 4; tally-h1: 0-1, tally-h2: 2-3" s.out &&
			"$TALLY" report ssh.exp --messages --format csv 2>/dev/null | diff messages.want - &&
			grep -q "ranks 2-3 of 4 missing" n.err && grep -q "tally-h2:/tmp/nothing: .*/tmp/nothing" n.err &&
			! test -e none.exp'
	fi
fi
