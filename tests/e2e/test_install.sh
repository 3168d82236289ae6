# test_install.sh — `make install PREFIX=DIR` gives a working tally (it
# records and reports with the installed libraries), tally.h and a
# pkg-config file a program builds against, man pages man renders, bash
# completion; `make uninstall` removes every file it installed.
. "$(dirname "$0")/lib.sh"
REPO=$(cd "$E2E/../.." && pwd)
BUILD_DIR=$(basename "${TALLY_BUILD:-$REPO/build}")
P="$T/prefix"
cc_prog spin
cd "$T"
check install_into_prefix sh -c "
	make -s -C \"$REPO\" BUILD=\"$BUILD_DIR\" install PREFIX=\"$P\" >make.out 2>&1 &&
	test -x \"$P/bin/tally\" && test -f \"$P/lib/libtally-collector.so\" && test -f \"$P/include/tally.h\" &&
	test -f \"$P/share/man/man1/tally-html.1\" && test -f \"$P/share/man/man5/tally-experiment.5\""
check installed_tally_records_and_reports sh -c "
	env -u TALLY_LIB_DIR \"$P/bin/tally\" record -o i.exp ./spin 0.2 2>/dev/null &&
	\"$P/bin/tally\" report i.exp | grep -q leaf_two"
check pkg_config_builds_against_tally_h sh -c "
	PKG_CONFIG_PATH=\"$P/lib/pkgconfig\" pkg-config --cflags --libs tally >pc.txt &&
	cc -O2 -o api \"$PROGS/api.c\" \$(cat pc.txt) -Wl,-rpath,\"$P/lib\" &&
	env -u TALLY_LIB_DIR \"$P/bin/tally\" record -o a.exp ./api 2>/dev/null >/dev/null &&
	\"$P/bin/tally\" report a.exp | grep -q Marker"
check man_pages_render sh -c "
	for f in \"$P\"/share/man/man1/*.1 \"$P\"/share/man/man5/*.5; do
		MANWIDTH=80 man -l \"\$f\" >man.txt 2>man.err && grep -q NAME man.txt && ! grep -q warning man.err || exit 1
	done
	MANWIDTH=80 man -l \"$P/share/man/man1/tally-diff.1\" | grep -q -- --normalised"
# the completion asks the tally on PATH (tally __complete) for its words
check bash_completion_completes sh -c "
	PATH=\"$P/bin:\$PATH\" bash -c '. \"$P/share/bash-completion/completions/tally\";
		COMP_WORDS=(tally ht); COMP_CWORD=1; _tally; echo \"\${COMPREPLY[*]}\";
		COMP_WORDS=(tally export x.exp --format sp); COMP_CWORD=4; _tally; echo \"\${COMPREPLY[*]}\"' >comp.txt &&
	grep -qx html comp.txt && grep -qx speedscope comp.txt"
check uninstall_removes_every_file sh -c "
	make -s -C \"$REPO\" BUILD=\"$BUILD_DIR\" uninstall PREFIX=\"$P\" >make2.out 2>&1 &&
	test -z \"\$(find \"$P\" -type f -o -type l)\""
