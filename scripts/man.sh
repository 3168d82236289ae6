#!/bin/sh
# SPDX-License-Identifier: MIT
# man.sh TALLY OUTDIR VERSION — the man pages `make install` installs, made
# from what the binary says, so they never drift from it: tally(1) from
# `tally --help`, tally-CMD(1) for each command from `tally CMD --help`, and
# tally-experiment(5) from docs/experiment-format.md (kept as written, in a
# preformatted block).
set -eu
tally=$1
out=$2
version=$3
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/man1" "$out/man5"
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}" +%Y-%m-%d)

l() {   # one line, as is
	printf '%s\n' "$1"
}

# roff-escape: backslashes, and lines starting with . or '
esc() {
	sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}

cmds=$("$tally" --help | awk '/^  [a-z]/ {print $1}')
see=""
for c in $cmds; do see="$see tally-$c(1),"; done
see="${see# }"

{
	printf '%s\n' ".TH TALLY 1 \"$date\" \"tally $version\" \"User Commands\""
	l '.SH NAME'
	l 'tally \- profile C, C++ and Fortran programs: time, memory, waits, I/O'
	l '.SH SYNOPSIS'
	l '.B tally'
	l '.I COMMAND'
	l '[\fIARGS\fR...]'
	l '.SH DESCRIPTION'
	l 'tally records a program into an experiment directory (\fBtally record\fR) and'
	l 'shows where its time, heap bytes, lock waits and I/O went, by function and call'
	l 'path (\fBtally report\fR, \fBtally html\fR, \fBtally export\fR, \fBtally diff\fR).'
	l '.PP'
	l '.nf'
	"$tally" --help | esc
	l '.fi'
	l '.SH EXIT STATUS'
	l '0 success, 1 partial result, 2 fatal error (one line on stderr naming the file'
	l 'and the cause), 64 usage error; \fBtally record\fR exits with the program'\''s status.'
	l '.SH ENVIRONMENT'
	l '.TP'
	l '.B TALLY_LIB_DIR'
	l 'where the collector libraries are (default: ../lib beside the tally binary).'
	l '.TP'
	l '.B NO_COLOR'
	l 'when set (and not empty), tables on a terminal are not coloured.'
	l '.SH SEE ALSO'
	printf '%s\n' "${see} tally-experiment(5), perf(1), gprof(1)"
} >"$out/man1/tally.1"

for c in $cmds; do
	what=$("$tally" --help | awk -v c="$c" '$1 == c {sub(/^  [a-z]+ +/, ""); print}')
	{
		printf '%s\n' ".TH TALLY-$(echo "$c" | tr a-z A-Z) 1 \"$date\" \"tally $version\" \"User Commands\""
		l '.SH NAME'
		printf '%s\n' "tally-$c \\- $what"
		l '.SH DESCRIPTION'
		l '.nf'
		"$tally" "$c" --help | esc
		l '.fi'
		l '.SH SEE ALSO'
		l 'tally(1), tally-experiment(5)'
	} >"$out/man1/tally-$c.1"
done

{
	printf '%s\n' ".TH TALLY-EXPERIMENT 5 \"$date\" \"tally $version\" \"File Formats\""
	l '.SH NAME'
	l 'tally-experiment \- the experiment directory tally record writes'
	l '.SH DESCRIPTION'
	l '.nf'
	esc <"$root/docs/experiment-format.md"
	l '.fi'
	l '.SH SEE ALSO'
	l 'tally(1), tally-record(1)'
} >"$out/man5/tally-experiment.5"
