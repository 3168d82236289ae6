#!/bin/sh
# make-tree.sh — re-record tests/data/tree.exp, the process tree in which the
# fuzzer (tests/fuzz/fuzz_tree.c) and tests/unit/test_fuzz_tree.c remove,
# truncate and swap files (tree.c says what it runs).  Run from the project
# root after `make`; the archive is left out (maps name system files only,
# and the program's own functions are <Unknown> without it: fine here).
set -eu
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -O1 -g -o "$T/tree" tests/data/tree.c
(cd "$T" && "$OLDPWD/build/bin/tally" record -H -i -F 2000 -o tree.exp ./tree)
rm -rf tests/data/tree.exp
mkdir tests/data/tree.exp
cp "$T"/tree.exp/*.dat "$T"/tree.exp/log.txt tests/data/tree.exp/
for d in "$T"/tree.exp/_*.exp; do
	mkdir "tests/data/tree.exp/$(basename "$d")"
	cp "$d"/* "tests/data/tree.exp/$(basename "$d")/"
done
du -sh tests/data/tree.exp
