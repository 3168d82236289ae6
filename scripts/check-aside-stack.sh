#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check-aside-stack.sh — the functions the collector runs aside (on the
# helper's stack of col_fds_aside, COL_FDS_ASIDE_STACK bytes) fit in that
# less RESERVE bytes with everything they call: the build fails otherwise.
#
#   scripts/check-aside-stack.sh FILE.ci...
#
# FILE.ci are gcc's call graphs with stack usage (-fcallgraph-info=su) of the
# collector's objects.  The functions run aside are found in the sources:
# those passed by name to col_fds_use or col_fds_aside, and those called
# there through a pointer: the writer's ops passed to with_fd (exp_write.c,
# called by aside_run) and the chunk functions passed to col_fds_read_each.
# A path's cost is the sum of its frames; a call through a pointer costs the
# largest of the latter; a function outside the graph (libc, a system call
# wrapper) costs nothing here: RESERVE leaves room for them and for the
# helper's own frames (aside_main, glibc's clone start).  Recursion or a
# frame of unbounded size (alloca, VLA) on a path fails too.  Prints the
# largest path.
#
# NOT_ASIDE lists the calls (caller>callee) a function run aside never makes
# there, by a flag the graph cannot see; each with its reason.  Keep it short:
# a call listed here is not checked on any path.
set -eu
RESERVE=2048
# col_procslot_put_sigsafe(..., aside = true), as write_once calls it (in the
# helper), writes a spilled item in place, never through col_fds_use.
NOT_ASIDE='col_procslot_put_sigsafe>col_fds_use'
stack=$(sed -n 's/^#define COL_FDS_ASIDE_STACK \([0-9]*\).*/\1/p' src/collector/col_fds.h)
[ -n "$stack" ] || { echo "check-aside-stack: no COL_FDS_ASIDE_STACK in src/collector/col_fds.h" >&2; exit 1; }
limit=$((stack - RESERVE))
roots=$(grep -Ho 'col_fds_\(use\|aside\)([a-z_0-9]*,' src/collector/*.c |
	sed 's/:col_fds_[a-z]*(\(.*\),/:\1/' | grep -v ':fn$' | sort -u)
ops=$({ grep -Ho 'with_fd([a-z_0-9]*, *[a-z_0-9]*,' src/format/*.c |
		sed 's/:with_fd([a-z_0-9]*, *\(.*\),/:\1/'
	grep -H 'col_fds_read_each(.*, *[a-z_][a-z_0-9]*, *[^,]*);' src/collector/*.c |
		sed 's/^\([^:]*\):.*col_fds_read_each(.*, *\([a-z_][a-z_0-9]*\), *[^,]*);.*/\1:\2/'
	} | sort -u)
[ -n "$roots" ] && [ -n "$ops" ] || { echo "check-aside-stack: no aside function found in src/" >&2; exit 1; }
awk -v limit="$limit" -v roots="$roots" -v ops="$ops" -v not_aside="$NOT_ASIDE" '
function cost(f,   i, n, c, best, bpath, d) {
	if (f in memo)
		return memo[f];
	if (f == "__indirect_call") {
		memo[f] = indirect; via[f] = "(through a pointer) " indirect_path
		return indirect;
	}
	if (!(f in bytes)) {
		memo[f] = 0; via[f] = ""
		return 0;
	}
	if (f in active) {
		bad = bad "recursion through " f "\n"
		return 0;
	}
	if (f in unbounded)
		bad = bad f ": a frame of unbounded size\n"
	active[f] = 1
	best = 0; bpath = ""
	n = ncallee[f]
	for (i = 1; i <= n; i++) {
		c = callee[f, i]
		if ((f ">" c) in skip)
			continue
		d = cost(c)
		if (d > best) {
			best = d; bpath = " > " c (via[c] == "" ? "" : via[c])
		}
	}
	delete active[f]
	memo[f] = bytes[f] + best
	via[f] = bpath
	return memo[f];
}
/^node:/ {
	t = $0; sub(/.*title: "/, "", t); sub(/".*/, "", t)
	if (match($0, /[0-9]+ bytes \([a-z,]*\)/)) {
		s = substr($0, RSTART, RLENGTH)
		b = s; sub(/ .*/, "", b)
		bytes[t] = b + 0
		if (s ~ /dynamic/ && s !~ /bounded/)
			unbounded[t] = 1
	}
	next
}
/^edge:/ {
	s = $0; sub(/.*sourcename: "/, "", s); sub(/".*/, "", s)
	t = $0; sub(/.*targetname: "/, "", t); sub(/".*/, "", t)
	if (!((s, t) in seen)) {
		seen[s, t] = 1
		callee[s, ++ncallee[s]] = t
	}
	next
}
END {
	nskip = split(not_aside, sk, " ")
	for (i = 1; i <= nskip; i++)
		skip[sk[i]] = 1
	indirect = 0; indirect_path = ""
	nops = split(ops, op, "\n")
	nroots = split(roots, root, "\n")
	for (i = 1; i <= nops; i++) {
		if (!(op[i] in bytes)) {
			print "check-aside-stack: " op[i] " (run aside) is not in the call graphs" > "/dev/stderr"
			exit 1
		}
		d = cost(op[i])
		if (d > indirect) {
			indirect = d; indirect_path = op[i] via[op[i]]
		}
	}
	split("", memo)
	worst = 0
	for (i = 1; i <= nroots; i++) {
		if (!(root[i] in bytes)) {
			print "check-aside-stack: " root[i] " (run aside) is not in the call graphs" > "/dev/stderr"
			exit 1
		}
		d = cost(root[i])
		if (d > limit)
			bad = bad root[i] via[root[i]] ": " d " bytes, over " limit "\n"
		if (d > worst) {
			worst = d; wpath = root[i] via[root[i]]
		}
	}
	if (bad != "") {
		printf "check-aside-stack: functions run aside (col_fds_aside, its helper stack):\n%s", bad > "/dev/stderr"
		exit 1
	}
	printf "aside stack: %d bytes at most (limit %d): %s\n", worst, limit, wpath
}' "$@"
