# test_install.sh — `make install PREFIX=DIR` gives a working tally (it
# records and reports with the installed libraries), tally.h and a
# pkg-config file a program builds against, man pages man renders
# without a warning, each listing every option of its command, bash
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
# Each page renders without a warning from troff (man --warnings) and
# reads as a man page: NAME, DESCRIPTION (and SYNOPSIS, EXAMPLES in
# section 1), no raw
# Markdown; a command's page lists every option the completion offers for
# it (the parser's table: tests/unit/test_cli_vocab.c checks the rest) and
# --help lists the same; tally(1) names every command's page.
man_pages_render() {
	cmds=$("$P/bin/tally" --help | awk '/^  [a-z]/ {print $1}')
	n=0
	for f in "$P"/share/man/man1/*.1 "$P"/share/man/man5/*.5; do
		MANWIDTH=80 man --warnings -E UTF-8 -l "$f" >man.txt 2>man.err || { cat man.err; return 1; }
		test ! -s man.err || { echo "$f:"; cat man.err; return 1; }
		for s in NAME DESCRIPTION; do
			grep -q "^$s" man.txt || { echo "$f: no $s"; return 1; }
		done
		case $f in *.1)
			grep -q '^SYNOPSIS' man.txt && grep -q '^EXAMPLES' man.txt ||
				{ echo "$f: no SYNOPSIS or EXAMPLES"; return 1; } ;;
		esac
		! grep -qE '^ *(#+ |\| --- )|```' man.txt || { echo "$f: Markdown"; return 1; }
		n=$((n + 1))
	done
	test "$n" -ge 12 || { echo "$n pages"; return 1; }
	MANWIDTH=80 man -E UTF-8 -l "$P/share/man/man1/tally.1" >tally.txt 2>/dev/null
	for c in $cmds; do
		grep -q "tally-$c(1)" tally.txt || { echo "tally(1) lacks tally-$c(1)"; return 1; }
		MANWIDTH=200 man -E UTF-8 -l "$P/share/man/man1/tally-$c.1" >page.txt 2>/dev/null
		"$P/bin/tally" "$c" --help >help.txt
		for o in $("$P/bin/tally" __complete "$c" "" -); do
			grep -q -- "$o\b" page.txt || { echo "tally-$c(1) lacks $o"; return 1; }
			grep -q -- "$o\b" help.txt || { echo "tally $c --help lacks $o"; return 1; }
		done
	done
}
if command -v man >/dev/null; then
	check man_pages_render man_pages_render
else
	skip man_pages_render "man is missing (apt-get install man-db; scripts/install-deps.sh test)"
fi
# the completion asks the tally on PATH (tally __complete) for its words
check bash_completion_completes sh -c "
	PATH=\"$P/bin:\$PATH\" bash -c '. \"$P/share/bash-completion/completions/tally\";
		COMP_WORDS=(tally ht); COMP_CWORD=1; _tally; echo \"\${COMPREPLY[*]}\";
		COMP_WORDS=(tally export x.exp --format sp); COMP_CWORD=4; _tally; echo \"\${COMPREPLY[*]}\"' >comp.txt &&
	grep -qx html comp.txt && grep -qx speedscope comp.txt"
check uninstall_removes_every_file sh -c "
	make -s -C \"$REPO\" BUILD=\"$BUILD_DIR\" uninstall PREFIX=\"$P\" >make2.out 2>&1 &&
	test -z \"\$(find \"$P\" -type f -o -type l)\""
