#!/bin/sh
# make-every.sh — re-record tests/data/every.exp, the real experiment in
# which tests/unit/test_corrupt.c flips bytes: every record type the
# collector writes (every.c says how).  Run from the project root after
# `make`; the archive is left out (the test reads records, not symbols).
set -eu
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -O1 -g -pg -pthread -o "$T/every" tests/data/every.c -ldl
(cd "$T" && "$OLDPWD/build/bin/tally" record -H -s 0 -i -F 2000 -o every.exp ./every out.txt)
rm -rf tests/data/every.exp
mkdir tests/data/every.exp
cp "$T"/every.exp/*.dat "$T"/every.exp/log.txt tests/data/every.exp/
