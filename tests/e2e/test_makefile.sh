# test_makefile.sh — the README's commands on a machine without the
# libraries: the Makefile checks them in a recipe, never while it is parsed,
# so `make demo` and `make check` reach their dependency step (shown here by
# `make -n`, with a pkg-config that finds nothing), and a plain `make` stops
# at once with the one-line message, having compiled nothing.
. "$(dirname "$0")/lib.sh"
REPO=$(cd "$E2E/../.." && pwd)
cd "$T"
for goal in demo check; do
	check "make_n_${goal}_installs_first" sh -c "
		PKG_CONFIG=/bin/false make -n -C \"$REPO\" BUILD=\"$T/b\" $goal >$goal.out 2>$goal.err &&
		first=\$(grep -n 'install-deps.sh' $goal.out | head -n 1 | cut -d: -f1) &&
		cc=\$(grep -n '^cc \\|^gcc \\|-c -o' $goal.out | head -n 1 | cut -d: -f1) &&
		test -n \"\$first\" && test -n \"\$cc\" && test \"\$first\" -lt \"\$cc\""
done
check make_without_libraries_says_so sh -c "
	! PKG_CONFIG=/bin/false make -C \"$REPO\" BUILD=\"$T/b\" >all.out 2>all.err &&
	grep -q 'missing libraries (libelf libdw capstone zlib): run scripts/install-deps.sh' all.err &&
	test ! -d \"$T/b/obj\" && test ! -d \"$T/b/pic\""
