#!/bin/sh
# run.sh — `make fuzz`: run the libFuzzer target for FUZZ_SECONDS (default
# 120) over tests/fuzz/corpus, keeping any crasher in tests/fuzz/crashers/.
set -eu
cd "$(dirname "$0")/../.."
b=${1:-build-fuzz}
mkdir -p "$b/corpus"
cp tests/fuzz/corpus/* "$b/corpus/" 2>/dev/null || true
"$b/fuzz/fuzz_experiment" -max_total_time="${FUZZ_SECONDS:-120}" -max_len=65536 \
	-artifact_prefix=tests/fuzz/crashers/ "$b/corpus"
