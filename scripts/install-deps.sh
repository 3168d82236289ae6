#!/bin/sh
# SPDX-License-Identifier: MIT
# install-deps.sh — install the Debian packages tally needs to build, test and
# benchmark, and only those that are missing.  Run by `make demo`, `make check`
# and `make bench`; safe to run again.  docs/dependencies.md says why each one.
set -eu

# package: what it is for
BUILD_PKGS="gcc make pkg-config libc6-dev libelf-dev libdw-dev libiberty-dev
libcapstone-dev zlib1g-dev"
TEST_PKGS="g++ python3 binutils clang llvm libclang-rt-14-dev gfortran time valgrind"
BENCH_PKGS="linux-perf hyperfine heaptrack"

want="$BUILD_PKGS"
case "${1:-build}" in
build) ;;
test) want="$want $TEST_PKGS" ;;
bench) want="$want $TEST_PKGS $BENCH_PKGS" ;;
*) echo "usage: $0 [build|test|bench]" >&2; exit 64 ;;
esac

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
	echo "install-deps: installing with sudo:$missing" >&2
else
	echo "install-deps: missing Debian packages:$missing" >&2
	echo "install-deps: run as root: apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 || {
	$SUDO apt-get update >/dev/null 2>&1
	$SUDO apt-get install -y --no-install-recommends $missing
}
