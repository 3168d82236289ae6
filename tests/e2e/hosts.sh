# hosts.sh — several test "hosts" on this one machine, for the multi-host MPI
# tests (tests/e2e/test_hosts.sh, docs/mpi.md "Several hosts"): each host is
# a network, mount, UTS (and, where the kernel has them, time) namespace with
# its own address on a private bridge, its own host name, and a private /tmp
# (a tmpfs); DIR's parent directory (the test's, with its programs) stays
# visible at its own path, as a shared file system would be.  The machine's own namespaces are never changed: the
# bridge lives in a namespace of its own ("switch").
#
#   sh hosts.sh up DIR NAME[@SECONDS]...
#       Make the hosts (NAME@SECONDS: its CLOCK_MONOTONIC shifted by SECONDS,
#       may be negative, in a time namespace).  Writes DIR/NAME.pid (the
#       process that keeps the host alive, sleeping), DIR/hosts (the names'
#       addresses, which each host sees as /etc/hosts) and DIR/agent, a
#       launch agent that runs a command on a host as ssh would:
#           DIR/agent NAME COMMAND...   (the words joined, run by sh -c)
#       Exit 0; or 1 with one line on stdout saying what this machine cannot
#       do (not root, no namespaces, no veth, no bridge...), nothing left.
#   sh hosts.sh down DIR
#       Kill the processes recorded in DIR/*.pid: the hosts go with them.
#
# Hosts are 10.231.77.1, .2, ... in the order given.  Needs root and
# util-linux's unshare and nsenter, iproute2's ip.
set -u
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: hosts.sh up|down DIR [NAME[@SECONDS]...]" >&2; exit 64; }
shift 2

down() {
	for f in "$dir"/*.pid; do
		[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
		rm -f "$f"
	done
	return 0
}

fail() {
	echo "$1"
	down
	exit 1
}

# wait_pid FILE: the pid a keeper wrote to FILE (within 10 s), or fail.
wait_pid() {
	for i in $(seq 100); do
		[ -s "$1" ] && { cat "$1"; return 0; }
		sleep 0.1
	done
	return 1
}

case $cmd in
down)
	down
	exit 0
	;;
up) ;;
*)
	echo "hosts.sh: unknown command $cmd" >&2
	exit 64
	;;
esac

[ "$(id -u)" -eq 0 ] || fail "needs root (network and mount namespaces)"
for t in unshare nsenter ip; do
	command -v $t >/dev/null || fail "no $t (util-linux, iproute2)"
done
mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || fail "cannot make $dir"
# Time namespaces (Linux 5.6): a host's clock may differ from the others'.
timens=
unshare --time --fork true 2>/dev/null && timens=-T

unshare --net --fork sh -c 'echo $$ >"$1.tmp" && mv "$1.tmp" "$1" && exec sleep 100000' sh "$dir/switch.pid" \
	>/dev/null 2>&1 &
sw=$(wait_pid "$dir/switch.pid") || fail "cannot make a network namespace (unshare --net)"
nsenter -t "$sw" -n ip link add br0 type bridge 2>/dev/null && nsenter -t "$sw" -n ip link set br0 up ||
	fail "cannot make a bridge in a network namespace (ip link add type bridge)"

: >"$dir/hosts.tmp"
printf '127.0.0.1\tlocalhost\n' >>"$dir/hosts.tmp"
i=0
for spec in "$@"; do
	i=$((i + 1))
	printf '10.231.77.%d\t%s\n' $i "${spec%@*}" >>"$dir/hosts.tmp"
done
mv "$dir/hosts.tmp" "$dir/hosts"

i=0
for spec in "$@"; do
	i=$((i + 1))
	name=${spec%@*}
	shift_s=0
	[ "$spec" != "$name" ] && shift_s=${spec#*@}
	time=
	if [ "$shift_s" != 0 ]; then
		[ -n "$timens" ] || fail "no time namespaces (Linux >= 5.6) to shift $name's clock"
		time="--time --monotonic $shift_s"
	elif [ -n "$timens" ]; then
		time="--time"
	fi
	# The keeper: names itself, hides /tmp under a tmpfs, shows DIR again at
	# its path (through a descriptor opened before, as mount would otherwise
	# look the path up in the new /tmp), and /etc/hosts; then sleeps.
	# shellcheck disable=SC2086
	unshare --net --mount --uts $time --propagation private --fork sh -c '
		name=$1 dir=$2 share=${2%/*}
		hostname "$name" || exit 1
		exec 3<"$share/"
		mount -t tmpfs -o mode=1777 tmpfs /tmp || exit 1
		case $share in
		/tmp/*) mkdir -p "$share" && mount -c --bind /proc/self/fd/3 "$share" || exit 1 ;;
		esac
		exec 3<&-
		mount --bind "$dir/hosts" /etc/hosts || exit 1
		echo $$ >"$dir/$name.pid.tmp" && mv "$dir/$name.pid.tmp" "$dir/$name.pid" && exec sleep 100000
	' sh "$name" "$dir" >"$dir/$name.err" 2>&1 &
	pid=$(wait_pid "$dir/$name.pid") ||
		fail "cannot make host $name: $(head -n 1 "$dir/$name.err") (unshare --net --mount --uts $time)"
	nsenter -t "$sw" -n ip link add "v$name" type veth peer name eth0 netns "$pid" 2>"$dir/$name.err" ||
		fail "cannot make a veth pair: $(head -n 1 "$dir/$name.err")"
	nsenter -t "$sw" -n ip link set "v$name" master br0 up &&
		nsenter -t "$pid" -n ip addr add "10.231.77.$i/24" dev eth0 &&
		nsenter -t "$pid" -n ip link set eth0 up && nsenter -t "$pid" -n ip link set lo up ||
		fail "cannot configure host $name's network"
	rm -f "$dir/$name.err"
done

cat >"$dir/agent" <<EOF
#!/bin/sh
# agent HOST COMMAND...: run COMMAND on test host HOST (made by hosts.sh), as
# ssh would: the words joined by spaces, run by sh -c, from /.
[ -s "$dir/\$1.pid" ] || { echo "agent: no test host \$1" >&2; exit 255; }
pid=\$(cat "$dir/\$1.pid")
shift
cd / && exec nsenter -t "\$pid" -n -m -u $timens -- sh -c "\$*"
EOF
chmod +x "$dir/agent"
# Every host knows itself by its name, and the others' addresses.
for a in "$@"; do
	[ "$("$dir/agent" "${a%@*}" hostname 2>/dev/null)" = "${a%@*}" ] || fail "cannot enter host ${a%@*} (nsenter)"
	for b in "$@"; do
		"$dir/agent" "${a%@*}" getent hosts "${b%@*}" >/dev/null 2>&1 ||
			fail "host ${a%@*} does not resolve ${b%@*} (/etc/hosts)"
	done
done
exit 0
