# test_fuzz_asan.sh — the analyzer under AddressSanitizer and
# UndefinedBehaviorSanitizer on damaged experiments (issue 19): a bounded,
# seeded mutation fuzz of real experiments (tests/data/every.exp: every
# record type; tests/data/tree.exp: a founder and three descendants; and a
# fresh recording with its program, so symbols and source are read too)
# through report (several views), export (several formats), check and html,
# with build-asan's tally (make check builds it before the e2e tests).  Any
# sanitizer report, crash or exit status other than 0, 1, 2 fails, with the
# mutation that caused it (TALLY_FUZZ_SEED replays a run).  Bounded by
# TALLY_FUZZ_CASES cases (default 150) and TALLY_FUZZ_SECONDS (default 150),
# whichever comes first, after the first 10 cases (a sanitized run takes
# ~2 s here, mostly symbols: ~25 cases unloaded, fewer under load, 10 at
# least whatever the load).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$E2E/../.." && pwd)
ASAN_TALLY=${TALLY_ASAN:-$(dirname "$TALLY_BUILD")/build-asan/bin/tally}
if [ ! -x "$ASAN_TALLY" ]; then
	skip analyzer_fuzzed_under_sanitizers "no $ASAN_TALLY (make check builds it; or make BUILD=build-asan SANITIZE=address,undefined build-asan/bin/tally)"
	exit 0
fi
cc_prog spin
cd "$T"
"$TALLY" record -o fresh.exp -- ./spin 0.2 >/dev/null 2>rec.err || { cat rec.err; exit 1; }
cp -r "$ROOT/tests/data/every.exp" "$ROOT/tests/data/tree.exp" .
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86 UBSAN_OPTIONS=print_stacktrace=1:exitcode=87
cat >mutate.py <<'PY'
# mutate.py SEED SRC DST: copy experiment SRC to DST with one damage, chosen
# by SEED; prints what it did.
import os, random, shutil, sys
seed, src, dst = int(sys.argv[1]), sys.argv[2], sys.argv[3]
r = random.Random(seed)
shutil.copytree(src, dst)
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(dst) for f in fs)
path = r.choice(files)
data = bytearray(open(path, "rb").read())
kind = r.choice(["flip", "flip", "flip", "bytes", "bytes", "truncate", "zero", "dup", "delete", "swap"])
n = len(data)
if kind == "flip" and n:
    for _ in range(r.randint(1, 8)):
        i = r.randrange(n)
        data[i] ^= 1 << r.randrange(8)
elif kind == "bytes" and n:
    i = r.randrange(n)
    fill = r.choice([b"\xff", b"\x00", b"\x7f", None])
    k = r.randint(1, 16)
    data[i:i + k] = fill * k if fill else bytes(r.randrange(256) for _ in range(k))
elif kind == "truncate":
    data = data[:r.randrange(n + 1)]
elif kind == "zero" and n:
    i = r.randrange(n)
    data[i:i + r.randint(8, 4096)] = bytes(min(n - i, 4096))[:len(data[i:i + 4096])]
elif kind == "dup" and n:
    i = r.randrange(n)
    data[i:i] = data[i:i + r.randint(8, 512)]
elif kind == "swap":
    other = r.choice(files)
    data = bytearray(open(other, "rb").read())
    kind = "swap with " + os.path.relpath(other, dst)
if kind == "delete":
    os.unlink(path)
else:
    open(path, "wb").write(data)
print(kind, os.path.relpath(path, dst), "seed", seed)
PY
# The three findings of issue 19, directly: a leak in --callers of no
# function; qsort(NULL, 0) in the timeline and the chrome export of a
# process without samples.
"$ASAN_TALLY" report fresh.exp --callers nosuch >cn.out 2>cn.err; rcn=$?
cp -r fresh.exp nosamples.exp && rm nosamples.exp/samples.dat nosamples.exp/stacks.dat
"$ASAN_TALLY" export nosamples.exp --format chrome -o ns.json >ns.out 2>ns.err; rcc=$?
"$ASAN_TALLY" html nosamples.exp -o ns.html >nh.out 2>nh.err; rch=$?
check sanitizer_findings_fixed sh -c "cat cn.err ns.err nh.err | grep -E 'Sanitizer|runtime error' && exit 1;
	echo callers $rcn chrome $rcc html $rch; test $rcn = 2 && test $rcc -le 1 && test $rch -le 1"
seed0=${TALLY_FUZZ_SEED:-19}
cases=${TALLY_FUZZ_CASES:-150}
budget=${TALLY_FUZZ_SECONDS:-150}
start=$(date +%s)
views="--functions --tree --threads --callers=main --gprof --processes --lines"
formats="collapsed pprof chrome speedscope callgrind arcs"
bad=0 ran=0 runs=0
for i in $(seq 0 $((cases - 1))); do
	[ $i -ge 10 ] && [ $(($(date +%s) - start)) -ge "$budget" ] && break
	seed=$((seed0 * 100000 + i))
	case $((i % 3)) in 0) src=every.exp ;; 1) src=tree.exp ;; *) src=fresh.exp ;; esac
	rm -rf case.exp
	what=$(python3 mutate.py $seed $src case.exp)
	view=$(echo $views | tr ' ' '\n' | sed -n "$((i % 7 + 1))p")
	fmt=$(echo $formats | tr ' ' '\n' | sed -n "$((i % 6 + 1))p")
	for c in "report case.exp $view" "export case.exp --format $fmt -o case.out" "check case.exp" \
		 "html case.exp -o case.html"; do
		# html is the heaviest: one case in four
		[ "${c#html}" != "$c" ] && [ $((i % 4)) != 0 ] && continue
		timeout 120 "$ASAN_TALLY" $c >case.stdout 2>case.stderr; rc=$?
		runs=$((runs + 1))
		if [ $rc -gt 2 ] || grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' case.stderr; then
			bad=$((bad + 1))
			echo "tally $c: exit $rc on $src, $what"
			grep -E 'ERROR|runtime error|SUMMARY|#[0-9] ' case.stderr | head -12
			[ $bad -ge 5 ] && break 2
		fi
	done
	ran=$((ran + 1))
done
echo "$ran cases, $runs runs of the sanitized tally in $(($(date +%s) - start)) s, $bad failed" >summary.txt
cat summary.txt
check analyzer_fuzzed_under_sanitizers test $bad = 0
exit 0
