#!/bin/sh
# SPDX-License-Identifier: MIT
# man.sh TALLY OUTDIR VERSION — the man pages `make install` installs:
# tally(1), tally-CMD(1) for each command of the command table, and
# tally-experiment(5), from the templates in man/ (PAGE.SECTION.in: the
# prose, the synopsis, the examples).  The parts that list what the
# command line takes come from the binary's tables, so that they never
# drift from `--help` and the parser: a template line @NAME@, @OPTIONS@ or
# @COMMANDS@ becomes `TALLY __man PAGE name|options|commands`; @DATE@ and
# @VERSION@ are filled in.  A command without a template is an error.
set -eu
tally=$1
out=$2
version=$3
root=$(cd "$(dirname "$0")/.." && pwd)
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}" +%Y-%m-%d)
mkdir -p "$out/man1" "$out/man5"

for c in $("$tally" --help | awk '/^  [a-z]/ {print $1}'); do
	[ -f "$root/man/tally-$c.1.in" ] || {
		echo "man.sh: command $c has no man page template (man/tally-$c.1.in)" >&2
		exit 1
	}
done

for t in "$root"/man/*.in; do
	name=$(basename "$t" .in)             # tally-record.1
	page=${name%.*}                        # tally-record
	sect=${name##*.}
	cmd=${page#tally-}                     # record (tally: tally)
	: >"$out/man$sect/$name.tmp"
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		@NAME@) "$tally" __man "$cmd" name ;;
		@OPTIONS@) "$tally" __man "$cmd" options ;;
		@COMMANDS@) "$tally" __man tally commands ;;
		*) printf '%s\n' "$line" | sed -e "s/@DATE@/$date/g" -e "s/@VERSION@/$version/g" ;;
		esac
	done <"$t" >"$out/man$sect/$name.tmp"
	mv "$out/man$sect/$name.tmp" "$out/man$sect/$name"
done
