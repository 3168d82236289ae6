#!/bin/sh
# demo.sh — `make demo`: build examples/demo.c, profile it, print the report.
set -eu
cd "$(dirname "$0")/.."
mkdir -p build/demo
cc -O2 -g -o build/demo/demo examples/demo.c
rm -rf build/demo/demo.exp
echo "== tally record -o build/demo/demo.exp -- build/demo/demo"
build/bin/tally record -o build/demo/demo.exp -- build/demo/demo
echo
echo "== tally report build/demo/demo.exp"
build/bin/tally report build/demo/demo.exp --limit 12
echo
echo "== tally report build/demo/demo.exp --callers by_count"
build/bin/tally report build/demo/demo.exp --callers by_count
