# test_static_options.sh — which `tally record` options the outside mode
# (a statically linked program, docs/static.md) refuses comes from one
# column of the record options' table (src/cli/cli_record_opts.c), which
# `tally record --help` lists:
#   - every option it lists as needing the collector is refused for a
#     static program it runs, exit 64, with one line naming the option and
#     the program, before anything runs (no experiment left);
#   - the same for a static process attached with -p, but --duration,
#     which tally does itself when attaching;
#   - every other option the parser takes (the completion's list, made
#     from the same table) records the static program;
#   - docs/static.md names the same refused options.
# An option added to the table without a sample value here fails the test,
# naming it.  Skipped where a static libc or perf_event_open is missing.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$E2E/../.." && pwd)
cd "$T"

all="static_refuses_what_needs_the_collector static_attach_refuses_what_needs_the_collector
	static_takes_every_other_option static_doc_lists_the_refused"
# shellcheck disable=SC2086
if ! need static $all; then
	exit 0
fi
cc -O2 -g -static -pthread -o staticky "$PROGS/staticky.c"
if ! "$TALLY" record -o probe.exp ./staticky 1 >/dev/null 2>probe.err; then
	for n in $all; do
		skip "$n" "the outside mode cannot sample here: $(head -c 200 probe.err)"
	done
	exit 0
fi

# The refused options, from --help: the list after "refused for it:"
# (needs the collector always) and the one "for a PROGRAM tally runs".
"$TALLY" record --help >help.txt
sed -n '/are refused for it:$/,/^and for a PROGRAM/p' help.txt | sed '1d;s/^and for a PROGRAM.*//' |
	tr ', ' '\n\n' | grep . >inside.txt
sed -n 's/^and for a PROGRAM tally runs (not with -p): \(.*\)\.$/\1/p' help.txt | tr ', ' '\n\n' |
	grep . >run.txt
# Every option the parser takes: the completion's words for `tally record -`,
# long names only (each short one is its long one's twin).
"$TALLY" __complete record "" - | grep '^--' >every.txt


# refused OPTION WANT [ARGS...]: `tally record -o r.exp ARGS --long=VALUE
# $PROG` refuses OPTION before anything runs, with one line naming it, exit
# WANT (any: not 0), no experiment.
refused() {
	opt=$1; want=$2
	shift 2
	lo=$(record_option_long "$opt" help.txt)
	v=$(record_option_value "$lo") || return 1
	rm -rf r.exp
	# shellcheck disable=SC2086
	"$TALLY" record -o r.exp "$@" "$lo${v:+=$v}" $PROG >r.out 2>r.err </dev/null
	rc=$?
	if [ $rc -eq 0 ] || { [ "$want" != any ] && [ $rc -ne "$want" ]; } || [ "$(wc -l <r.err)" -ne 1 ] ||
		! grep -q -- "$opt" r.err || [ -d r.exp ]; then
		echo "$opt $*: exit $rc, $(wc -l <r.err) lines:"; cat r.err; return 1
	fi
}

PROG="./staticky 1"
refuses_launched() {
	n=0
	for opt in $(cat inside.txt run.txt); do
		refused "$opt" 64 || return 1
		grep -q "staticky is statically linked" r.err || { cat r.err; return 1; }
		n=$((n + 1))
	done
	echo "$n options refused"
	test "$n" -ge 10
}
check static_refuses_what_needs_the_collector refuses_launched

# Attached: a static process running until killed (a million units: hours,
# however slow the machine; killed below, or by lib.sh's trap).
./staticky 1000000 >aw.out 2>&1 & AW=$!
refuses_attached() {
	PROG=
	n=0
	for opt in $(cat inside.txt); do
		# -H -s -i -m, --states, -c, --delay... are refused for any attach
		# (with their own line); the rest by the outside mode's table.
		kill -0 $AW || { echo "the static process ended"; return 1; }
		refused "$opt" any -p $AW || return 1
		n=$((n + 1))
	done
	echo "$n options refused"
	rm -rf a.exp
	for opt in $(cat run.txt); do
		"$TALLY" record -o a.exp -p $AW "$opt=1" 2>a.err &&
			test -d a.exp && grep -q "which goes on" a.err || { cat a.err; return 1; }
	done
}
check static_attach_refuses_what_needs_the_collector refuses_attached
kill $AW 2>/dev/null
wait $AW 2>/dev/null

takes_the_rest() {
	n=0
	for opt in $(cat every.txt); do
		short=$(sed -n "s/^  \(-[a-zA-Z]\), $opt\b.*/\1/p" help.txt)
		grep -qx -- "$opt" inside.txt run.txt && continue
		[ -n "$short" ] && grep -qx -- "$short" inside.txt run.txt && continue
		case $opt in
		--output | --help | --pid) continue ;;   # -o is in every run; --help, -p: no run
		esac
		v=$(record_option_value "$opt") || return 1
		rm -rf k.exp
		"$TALLY" record -o k.exp "$opt${v:+=$v}" ./staticky 20 >k.out 2>k.err </dev/null ||
			{ echo "$opt: refused:"; cat k.err; return 1; }
		"$TALLY" report k.exp -q --format csv --columns excl,name >k.csv 2>&1 &&
			grep -q heavy k.csv || { echo "$opt: no heavy in"; cat k.csv; return 1; }
		n=$((n + 1))
	done
	echo "$n options taken"
	test "$n" -ge 4
}
check static_takes_every_other_option takes_the_rest

# docs/static.md's sentence "refused ...: `-H`, ..." names the same options.
doc_lists_them() {
	for opt in $(cat inside.txt run.txt); do
		grep -q -- "\`$opt\`" "$ROOT/docs/static.md" || { echo "docs/static.md lacks $opt"; return 1; }
	done
}
check static_doc_lists_the_refused doc_lists_them
