#!/bin/sh
# run.sh — `make fuzz`: run the libFuzzer targets for FUZZ_SECONDS each
# (default 120): fuzz_experiment over tests/fuzz/corpus, fuzz_flip (one
# corrupt byte in tests/data/every.exp), keeping any crasher in
# tests/fuzz/crashers/; fuzz_tree (files of tests/data/tree.exp's processes
# removed, cut, swapped, replaced), keeping crashers as tree-*.
set -eu
cd "$(dirname "$0")/../.."
b=${1:-build-fuzz}
mkdir -p "$b/corpus"
cp tests/fuzz/corpus/* "$b/corpus/" 2>/dev/null || true
"$b/fuzz/fuzz_experiment" -max_total_time="${FUZZ_SECONDS:-120}" -max_len=65536 \
	-artifact_prefix=tests/fuzz/crashers/ "$b/corpus"
mkdir -p "$b/corpus-flip"
"$b/fuzz/fuzz_flip" -max_total_time="${FUZZ_SECONDS:-120}" -max_len=16 \
	-artifact_prefix=tests/fuzz/crashers/flip- "$b/corpus-flip"
mkdir -p "$b/corpus-tree"
"$b/fuzz/fuzz_tree" -max_total_time="${FUZZ_SECONDS:-120}" -max_len=64 \
	-artifact_prefix=tests/fuzz/crashers/tree- "$b/corpus-tree"
