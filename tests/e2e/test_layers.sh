# test_layers.sh — the collector's structure holds: each of its files
# includes and calls only files on lower layers (the list in the header
# comment of src/collector/col_state.h), files that run in the signal
# handler never include <stdio.h>, and the thread wrapper's symbol is the
# name the analyzer looks for (format/exp_launch.h).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$E2E/../.." && pwd)
BUILD=${TALLY_BUILD:-$(dirname "$TALLY")/..}
COL=$ROOT/src/collector

# rank MODULE: a module's line number in the layer list ("" if absent); a
# list entry "mod:file1:file2" also places file1.* and file2.* in mod.
sed -n '/^ \* layers:$/,/^ \* end of layers\.$/p' "$COL/col_state.h" |
	sed '1d;$d; s/^ \*   //' | awk '{
		for (i = 1; i <= NF && $i ~ /^col_/; i++) {
			n = split($i, part, ":")
			for (j = 1; j <= n; j++) print part[j], NR, part[1]
		}
	}' >"$T/layers"

layer_of() { awk -v f="$1" '$1 == f { print $2 }' "$T/layers"; }
module_of() { awk -v f="$1" '$1 == f { print $3 }' "$T/layers"; }

includes_go_down() {
	bad=0
	for f in "$COL"/*.[chS]; do
		base=$(basename "$f"); base=${base%.*}
		me=$(layer_of "$base")
		if [ -z "$me" ]; then
			echo "$base: not in the layer list of col_state.h"; bad=1; continue
		fi
		for inc in $(sed -n 's|^#include "collector/\(col_[a-z_]*\)\.h".*|\1|p' "$f"); do
			it=$(layer_of "$inc")
			if [ -z "$it" ]; then
				echo "$base includes $inc.h, which is in no layer"; bad=1
			elif [ "$(module_of "$inc")" != "$(module_of "$base")" ] && [ "$it" -ge "$me" ]; then
				echo "$base (layer $me) includes $inc.h (layer $it)"; bad=1
			fi
		done
	done
	return $bad
}

calls_go_down() {
	bad=0
	objs=$(for f in "$COL"/*.[cS]; do
		b=$(basename "$f"); echo "$BUILD/pic/src/collector/${b%.*}.o"
	done)
	for o in $objs; do
		nm --defined-only -g "$o" | awk -v m="$(basename "$o" .o)" 'NF == 3 { print $3, m }'
	done >"$T/defs"
	for o in $objs; do
		base=$(basename "$o" .o)
		me=$(layer_of "$base")
		for sym in $(nm -u "$o" | awk '{ print $2 }'); do
			def=$(awk -v s="$sym" '$1 == s { print $2; exit }' "$T/defs")
			[ -n "$def" ] && [ "$(module_of "$def")" != "$(module_of "$base")" ] || continue
			it=$(layer_of "$def")
			if [ -z "$me" ] || [ -z "$it" ] || [ "$it" -ge "$me" ]; then
				echo "$base (layer $me) uses $sym of $def (layer $it)"; bad=1
			fi
		done
	done
	return $bad
}

sigsafe_files_avoid_stdio() {
	bad=0
	for f in "$COL"/*.c "$ROOT"/src/format/exp_write*.c; do
		sed -n '1,/\*\//p' "$f" | grep -qi 'sigsafe file' || continue
		if grep -q '^#include <stdio.h>' "$f"; then
			echo "$(basename "$f") runs in the signal handler and includes <stdio.h>"; bad=1
		fi
	done
	return $bad
}

wrapper_symbol_is_the_contract() {
	name=$(sed -n 's/^#define EXP_THREAD_WRAPPER "\(.*\)"$/\1/p' "$ROOT/src/format/exp_launch.h")
	test -n "$name" && nm "$BUILD/lib/libtally-collector.so" | awk '{ print $3 }' | grep -qx "$name"
}

check layer_list_is_read sh -c "test \$(wc -l <'$T/layers') -ge 20"
check collector_includes_go_down includes_go_down
check collector_calls_go_down calls_go_down
check sigsafe_files_avoid_stdio sigsafe_files_avoid_stdio
check thread_wrapper_symbol_is_the_contract wrapper_symbol_is_the_contract
