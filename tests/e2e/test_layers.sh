# test_layers.sh — the collector's structure holds: each of its files
# includes and calls only files on lower layers (the list in the header
# comment of src/collector/col_state.h), by symbol and by name (no file
# below the interposers calls one of their names; the format's writers
# call nothing of the collector), files that run in the signal
# handler never include <stdio.h> nor reach getenv (gcc's call graphs),
# and the thread wrapper's symbol is the name the analyzer looks for
# (format/exp_launch.h).
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

# One pass: every object's defined and undefined symbols, then each use of
# another module's symbol checked against the layers (awk once, not once a
# symbol: the per-symbol version took minutes under load).
calls_go_down() {
	for f in "$COL"/*.[cS]; do
		b=$(basename "$f"); b=${b%.*}; o="$BUILD/pic/src/collector/$b.o"
		nm --defined-only -g "$o" | awk -v m="$b" 'NF == 3 { print "D", $3, m }'
		nm -u "$o" | awk -v m="$b" '{ print "U", $2, m }'
	done >"$T/syms"
	awk 'FILENAME == ARGV[1] { layer[$1] = $2; mod[$1] = $3; next }
	     $1 == "D" { if (!($2 in def)) def[$2] = $3; next }
	     { n++; use[n] = $2; who[n] = $3 }
	     END {
		bad = 0
		for (i = 1; i <= n; i++) {
			s = use[i]; b = who[i]
			if (!(s in def) || mod[def[s]] == mod[b])
				continue
			me = layer[b]; it = layer[def[s]]
			if (me == "" || it == "" || it + 0 >= me + 0) {
				print b " (layer " me ") uses " s " of " def[s] " (layer " it ")"; bad = 1
			}
		}
		exit bad
	     }' "$T/layers" "$T/syms"
}

# Below the top layer the collector calls a function it interposes only
# through the table of real ones, spelled COL_REAL(name)(...) (col_real.h):
# a call written `name(` there is a call of tally's own interposer, a call
# upwards that the symbol check above cannot see (the table is data), and
# for a reader or a call graph indistinguishable from one.  The format's
# writers, beneath the collector, spell the same EXP_SYS(name)(...).
interposed_names() {
	{
		sed -n 's/^[[:space:]]*X([^,]*, *\([A-Za-z_0-9]*\), *(.*/\1/p' "$COL/col_real.h"
		cat "$COL"/*.c | sed -n 's/^COL_API [^(]*[ *]\([A-Za-z_][A-Za-z_0-9]*\)(.*/\1/p'
	} | sort -u
}
no_interposer_below_top() {
	top=$(awk 'END { print $2 }' "$T/layers")
	interposed_names >"$T/interposed"
	test "$(wc -l <"$T/interposed")" -ge 100 || { echo "interposed names not read"; return 1; }
	bad=0
	for f in "$COL"/*.[ch] "$ROOT"/src/format/exp_write*.[ch]; do
		base=$(basename "$f"); base=${base%.*}
		case $base in exp_*) ;; *) [ "$(layer_of "$base")" = "$top" ] && continue ;; esac
		# the code without comments and strings, and the names called there:
		# a name and "(" after an operator, "return" or an indent (not
		# after a type: declarations are no calls)
		cc -fpreprocessed -dD -E -P "$f" 2>/dev/null | sed 's/"[^"]*"//g' |
			grep -oE '(^[[:space:]]+|return[[:space:]]+|[^A-Za-z_0-9[:space:]*][[:space:]]*)[A-Za-z_][A-Za-z_0-9]*[[:space:]]*\(' |
			sed -E 's/^(return)?[^A-Za-z_]*//; s/[[:space:]]*\($//' | sort -u >"$T/called"
		for name in $(comm -12 "$T/called" "$T/interposed"); do
			echo "$base calls $name(: the interposer, or the real one not spelled COL_REAL($name) or EXP_SYS($name)"; bad=1
		done
	done
	return $bad
}

# The format's writers linked into the collector (build/pic/src/format)
# call nothing the collector defines: they are beneath it.  (libc's
# syscall() or mmap() called there bound to the collector's interposers.)
writers_call_no_collector() {
	for o in "$BUILD"/pic/src/collector/*.o; do nm --defined-only -g "$o" | awk '{ print $3 }'; done |
		sort -u >"$T/coldefs"
	bad=0
	for o in "$BUILD"/pic/src/format/*.o; do
		for s in $(nm -u "$o" | awk '{ print $2 }' | sort -u | comm -12 - "$T/coldefs"); do
			echo "$(basename "$o" .o) calls $s, which the collector defines"; bad=1
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

# The signal handler reads no environment: getenv walks environ, an array
# another thread's setenv may free under it (a deferred fork child's file,
# made at its first sample, republished TALLY_PID through getenv: issue 19).
# From gcc's call graphs (-fcallgraph-info, the collector's .ci files): every
# function reachable from the handler, on_signal, and from the deferred
# open, which the handler calls through col_proc.open_deferred (the graph
# cannot follow a pointer), calls none of getenv, secure_getenv, setenv,
# putenv, unsetenv or clearenv.
handler_reads_no_environment() {
	cat "$BUILD"/pic/src/collector/*.ci | python3 -c '
import re, sys
edges = {}
for line in sys.stdin:
    m = re.match(r"edge: \{ sourcename: \"([^\"]*)\" targetname: \"([^\"]*)\"", line)
    if m:
        edges.setdefault(m.group(1).split(":")[-1], set()).add(m.group(2).split(":")[-1])
env = {"getenv", "secure_getenv", "setenv", "putenv", "unsetenv", "clearenv"}
roots = ["on_signal", "open_deferred"]
assert all(r in edges for r in roots), [r for r in roots if r not in edges]
seen, todo, parent, bad = set(roots), list(roots), {}, []
while todo:
    f = todo.pop()
    for c in sorted(edges.get(f, ())):
        if c in env:
            path, g = [c], f
            while g:
                path.append(g)
                g = parent.get(g)
            bad.append(" > ".join(reversed(path)))
        elif c not in seen:
            seen.add(c); parent[c] = f; todo.append(c)
print(len(seen), "functions reachable from the handler")
print("\n".join(bad))
sys.exit(1 if bad else 0)'
}

check layer_list_is_read sh -c "test \$(wc -l <'$T/layers') -ge 20"
check collector_includes_go_down includes_go_down
check collector_calls_go_down calls_go_down
check collector_calls_no_interposer_below_top no_interposer_below_top
check format_writers_call_no_collector writers_call_no_collector
check sigsafe_files_avoid_stdio sigsafe_files_avoid_stdio
check thread_wrapper_symbol_is_the_contract wrapper_symbol_is_the_contract
if ls "$BUILD"/pic/src/collector/*.ci >/dev/null 2>&1; then
	check signal_handler_reads_no_environment handler_reads_no_environment
else
	skip signal_handler_reads_no_environment "no call graphs (the compiler has no -fcallgraph-info)"
fi

# --- the analyzer: no circle between files, the model in its stated order ---
# A file's room is its .c; room A depends on room B when A's object uses a
# symbol B's object defines (a header's inline code and macros are its
# includer's).  Every strongly connected set of more than one room is a
# circle (Tarjan's algorithm).
cat >"$T/circles.py" <<'PY'
import os, re, subprocess, sys
root, build = sys.argv[1], sys.argv[2]
dirs = ['format', 'symbols', 'model', 'report', 'cli', 'attach']
rooms = {}
for d in dirs:
    for f in sorted(os.listdir(os.path.join(root, 'src', d))):
        if f.endswith('.c'):
            rooms[d + '/' + f[:-2]] = os.path.join(root, 'src', d, f)
defs, uses, edges = {}, {}, {r: set() for r in rooms}
for r in rooms:
    o = os.path.join(build, 'obj', 'src', r + '.o')
    if not os.path.exists(o):     # the format's writers: the collector's build
        o = os.path.join(build, 'pic', 'src', r + '.o')
    out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
    uses[r] = set()
    for l in out.splitlines():
        p = l.split()
        if len(p) == 2 and p[0] == 'U':
            uses[r].add(p[1])
        elif len(p) == 3 and p[1] in 'TDRBVW':
            defs.setdefault(p[2], r)
for r in rooms:
    for s in uses[r]:
        if s in defs and defs[s] != r:
            edges[r].add(defs[s])
if sys.argv[3] == 'order':
    # model_build_int.h: each file calls only the files above it in its list
    text = open(os.path.join(root, 'src/model/model_build_int.h')).read()
    order = re.findall(r'^ \*   (model_[a-z_]+)\.c', text, re.M)
    rank = {'model/' + f: i for i, f in enumerate(order)}
    bad = [(a, b) for a in rank for b in sorted(edges[a]) if b in rank and rank[b] >= rank[a]]
    for a, b in bad:
        print('%s calls %s, which model_build_int.h lists above it' % (a, b))
    sys.exit(1 if bad or len(order) < 10 else 0)
index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        scc = []
        while True:
            w = stack.pop(); on.discard(w); scc.append(w)
            if w == v: break
        if len(scc) > 1: sccs.append(sorted(scc))
for v in sorted(rooms):
    if v not in index: visit(v)
for s in sccs:
    print('circle: ' + ' <-> '.join(s))
    for a in s:
        print('  %s -> %s' % (a, ', '.join(sorted(b for b in edges[a] if b in s))))
sys.exit(1 if sccs or len(rooms) < 50 else 0)
PY
check analyzer_has_no_circle python3 "$T/circles.py" "$ROOT" "$BUILD" circles
check model_calls_in_stated_order python3 "$T/circles.py" "$ROOT" "$BUILD" order
