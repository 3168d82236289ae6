#!/bin/sh
# SPDX-License-Identifier: MIT
# install-deps.sh — install the Debian packages tally needs to build, test and
# benchmark, and only those that are missing.  Run by `make demo`, `make check`
# and `make bench`; safe to run again.  docs/dependencies.md says why each one.
#
#   scripts/install-deps.sh [build|test|bench]     (default: build)
#
# As root, or through sudo; otherwise it names what is missing and fails.
# When a package is unknown to apt (a fresh machine has no package lists),
# the lists are updated first.
set -eu

# One package per line: PACKAGE GROUP.  A group includes the ones above it
# (test installs build's, bench installs test's).  To add one: append a line
# here and a row in docs/dependencies.md.
packages() {
	cat <<'EOF'
gcc                 build
make                build
pkg-config          build
libc6-dev           build
libelf-dev          build
libdw-dev           build
libiberty-dev       build
libcapstone-dev     build
zlib1g-dev          build
libc6-dbg           build
g++                 test
python3             test
binutils            test
clang               test
llvm                test
libclang-rt-14-dev  test
libomp-14-dev       test
gfortran            test
time                test
valgrind            test
openmpi-bin         test
libopenmpi-dev      test
slurm-wlm           test
munge               test
iproute2            test
openssh-client      test
dropbear-bin        test
strace              test
musl-tools          test
chromium            test
golang-go           test
linux-perf          test
nodejs              test
file                test
man-db              test
openjdk-17-jdk-headless test
hyperfine           bench
heaptrack           bench
bpftrace            bench
EOF
}

case "${1:-build}" in
build) groups="build" ;;
test) groups="build test" ;;
bench) groups="build test bench" ;;
*) echo "usage: $0 [build|test|bench]" >&2; exit 64 ;;
esac

# The npm packages of tests/js (consumers of the exports and the HTML
# report), pinned by its package-lock.json, installed when it changed.
npm_deps() {
	case " $groups " in *" test "*) ;; *) return 0 ;; esac
	js="$(dirname "$0")/../tests/js"
	[ -f "$js/node_modules/.stamp" ] && [ "$js/node_modules/.stamp" -nt "$js/package-lock.json" ] && return 0
	(cd "$js" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) &&
		touch "$js/node_modules/.stamp"
}

missing=""
for p in $(packages | awk -v g=" $groups " 'index(g, " " $2 " ") { print $1 }'); do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
# npm comes with some builds of nodejs; Debian's is a package of its own
case " $groups " in *" test "*) command -v npm >/dev/null 2>&1 || missing="$missing npm" ;; esac
if [ -z "$missing" ]; then
	npm_deps
	exit
fi

if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "install-deps: missing Debian packages:$missing" >&2
	echo "install-deps: run as root: apt-get install$missing" >&2
	exit 1
fi
echo "install-deps: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive

# Does apt know every package (a candidate version to install)?
known() {
	for p in $missing; do
		apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]' || return 1
	done
}

known || $SUDO apt-get update -q >&2
$SUDO apt-get install -y -q --no-install-recommends $missing >&2 || {
	# Stale lists (a version no longer on the mirror): update and retry once.
	$SUDO apt-get update -q >&2
	$SUDO apt-get install -y -q --no-install-recommends $missing >&2
}
npm_deps
