#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh — prove the README's promise: on a fresh Debian 12 with nothing but
# make and git, `make demo` and `make check` work.
#
#   tests/fresh/run.sh [ROOT]        (as root; default ROOT /var/tmp/tally-fresh)
#
# Makes a clean root with `debootstrap --variant=minbase bookworm` (unless
# ROOT already holds one: then it is used as it is, so start from a copy
# made right after debootstrap to keep it fresh), installs make and git in
# it, clones this repository's committed HEAD into ROOT/usr/local/src/tally
# (readable by every user: some tests run commands as nobody), mounts
# /proc, /sys, /dev, /dev/pts and /dev/shm, and runs `make demo` then
# `make check` inside with chroot.  Prints each command's time and last
# lines; the logs stay in ROOT/root/*.log.  Exit status: make check's.
#
# Not part of `make check` or CI: it takes long (about an hour on 2 cores,
# most of it installing packages and the tests) and needs the network.
# MIRROR overrides the Debian mirror (default http://deb.debian.org/debian).
set -eu
ROOT=${1:-/var/tmp/tally-fresh}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
REPO=$(cd "$(dirname "$0")/../.." && pwd)

[ "$(id -u)" -eq 0 ] || { echo "fresh: run as root (debootstrap, chroot, mount)" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
if ! command -v debootstrap >/dev/null 2>&1; then
	apt-get install -y -q debootstrap || { apt-get update -q && apt-get install -y -q debootstrap; }
fi
if [ ! -x "$ROOT/bin/sh" ]; then
	echo "== debootstrap --variant=minbase bookworm $ROOT"
	debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR"
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# The host's network comes with its own certificate authorities when it is
# behind a TLS-inspecting proxy: the root trusts them too (update-ca-certificates
# below, and NODE_EXTRA_CA_CERTS for npm, which does not read the system store).
mkdir -p "$ROOT/usr/local/share/ca-certificates"
for crt in /usr/local/share/ca-certificates/*.crt; do
	[ -f "$crt" ] && cp "$crt" "$ROOT/usr/local/share/ca-certificates/"
done

mounted=""
mnt() {   # mnt TARGET ARGS...: mount ARGS on ROOT/TARGET, undone at exit
	mkdir -p "$ROOT/$1"
	t=$1; shift
	mount "$@" "$ROOT/$t"
	mounted="$ROOT/$t $mounted"
}
cleanup() {
	for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM
mnt proc -t proc proc
mnt sys -t sysfs sys
mnt dev --bind /dev
mnt dev/pts --bind /dev/pts
mnt dev/shm -t tmpfs -o mode=1777 shm

in_root() { chroot "$ROOT" /usr/bin/env -i HOME=/root TERM=dumb \
	NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

echo "== apt-get install make git (in the root)"
in_root sh -c 'apt-get update -q && apt-get install -y -q --no-install-recommends make git ca-certificates && update-ca-certificates' \
	>"$ROOT/root/setup.log" 2>&1 || { tail -n 20 "$ROOT/root/setup.log"; exit 1; }
SRC=/usr/local/src/tally
rm -rf "$ROOT$SRC"
git clone -q "$REPO" "$ROOT$SRC"
echo "== HEAD $(git -C "$ROOT$SRC" log --oneline -1)"

status=0
for target in demo check; do
	t0=$(date +%s)
	rc=0
	in_root sh -c "cd $SRC && make $target" >"$ROOT/root/$target.log" 2>&1 || rc=$?
	t1=$(date +%s)
	echo "== make $target: exit $rc after $((t1 - t0)) s; last lines:"
	tail -n 8 "$ROOT/root/$target.log" | sed 's/^/    /'
	[ $rc -eq 0 ] || status=$rc
done
exit $status
