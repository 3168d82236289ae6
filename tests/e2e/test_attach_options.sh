# test_attach_options.sh — which `tally record` options `tally record -p
# PID` refuses comes from the `attach` column of the record options' table
# (src/cli/cli_record_opts.c), which `tally record --help` lists:
#   - every option it lists (tracing; what starts with a run tally starts)
#     is refused with one line naming it, not exit 0, no experiment, the
#     process untouched;
#   - every other option the parser takes (the completion's list, made
#     from the same table) attaches and detaches, the process going on;
#   - docs/attach.md names the same refused options.
# An option added to the table without a sample value here fails the test,
# naming it.  (test_static_options.sh: the same for a static process.)
. "$(dirname "$0")/lib.sh"
cc -O2 -g -pthread -o "$T/aw" "$PROGS/attach_work.c"
cd "$T"

"$TALLY" record --help >help.txt
# The lists after "tracing is refused:" and "what starts with a run tally
# starts:", up to the next unindented line.
sed -n '/^With -p (attaching/,$p' help.txt | sed '1d' | awk '/^[^ ]/ { next } { print }' |
	tr ', ' '\n\n' | grep . >refused.txt
"$TALLY" __complete record "" - | grep '^--' >every.txt


./aw threads 3600 >aw.out 2>aw.err & P=$!
for _ in $(seq 100); do grep -q '^ready' aw.err 2>/dev/null && break; sleep 0.1; done

refuses_the_listed() {
	n=0
	for opt in $(cat refused.txt); do
		kill -0 $P || { echo "the process ended"; return 1; }
		lo=$(record_option_long "$opt" help.txt)
		v=$(record_option_value "$lo") || return 1
		rm -rf r.exp
		"$TALLY" record -o r.exp -p $P "$lo${v:+=$v}" >r.out 2>r.err </dev/null; rc=$?
		if [ $rc -eq 0 ] || [ "$(wc -l <r.err)" -ne 1 ] || ! grep -q -- "$opt" r.err || [ -d r.exp ] ||
			grep -q libtally-collector /proc/$P/maps; then
			echo "$lo: exit $rc:"; cat r.err; return 1
		fi
		n=$((n + 1))
	done
	echo "$n options refused"
	test "$n" -ge 10
}
check attach_refuses_what_the_table_says refuses_the_listed

takes_the_rest() {
	n=0
	for opt in $(cat every.txt); do
		short=$(sed -n "s/^  \(-[a-zA-Z]\), $opt\b.*/\1/p" help.txt)
		grep -qx -- "$opt" refused.txt && continue
		[ -n "$short" ] && grep -qx -- "$short" refused.txt && continue
		case $opt in
		--output | --help | --pid) continue ;;   # -o and -p are in every run; --help: no run
		esac
		v=$(record_option_value "$opt") || return 1
		[ "$opt" = --duration ] && v=0.3
		rm -rf k.exp
		"$TALLY" record -o k.exp -p $P --duration 0.3 "$opt${v:+=$v}" >k.out 2>k.err </dev/null &&
			grep -q "which goes on" k.err && test -d k.exp && kill -0 $P ||
			{ echo "$opt:"; cat k.err; return 1; }
		n=$((n + 1))
	done
	echo "$n options taken"
	test "$n" -ge 5
}
check attach_takes_every_other_option takes_the_rest
kill $P 2>/dev/null
wait $P 2>/dev/null

# docs/attach.md names the same refused options.
doc_lists_them() {
	for opt in $(cat refused.txt); do
		grep -q -- "\`$opt\`" "$E2E/../../docs/attach.md" || { echo "docs/attach.md lacks $opt"; return 1; }
	done
}
check attach_doc_lists_the_refused doc_lists_them
