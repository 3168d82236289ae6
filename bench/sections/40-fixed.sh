# SPDX-License-Identifier: MIT
# 40-fixed.sh — fixed cost: wall time of `tally record true` minus that of
# `true`, with `perf record true` and `gprofng collect app true` beside it.
# All four commands run interleaved; the figure is the median of per-round
# differences to `true`, in milliseconds.  Each recorder writes a new
# experiment every run (the previous one is deleted first, untimed).
section "4. Fixed cost: recording /bin/true"

d=$OUT/fixed
rm -rf "$d" && mkdir -p "$d"
TRUE=$(command -v true)
[ "${TRUE#/}" != "$TRUE" ] || TRUE=/bin/true
set -- --cmd true "$TRUE" \
	--cmd tally "$TALLY record -o $d/t.exp -- $TRUE" --pre tally "rm -rf $d/t.exp"
pwhy=$(perf_why)
gwhy=$(gprofng_why)
[ -z "$pwhy" ] && set -- "$@" --cmd perf "perf record -q -o $d/perf.data -- $TRUE" --pre perf "rm -f $d/perf.data"
[ -z "$gwhy" ] && set -- "$@" --cmd gprofng "gprofng collect app -O $d/g.er $TRUE" --pre gprofng "rm -rf $d/g.er"
rounds=$((ROUNDS * 2 + 1))
tb time --rounds $rounds --warmup 2 --base true --json "$d/times.json" --dir "$d" "$@"

ms() { python3 -c "import sys; print(f'{float(sys.argv[1]) * 1000:.1f}')" "$1"; }
j=$d/times.json
# over LABEL WHY: "N ms" over true, or "n/a (why)"; prints the detail as a note.
over() {
	local v
	v=$(tb get "$j" "$1.diff_med")
	if [ -n "$v" ]; then
		note "$1: $(ms "$v") ms over true (median of $rounds rounds;" \
			"range $(ms "$(tb get "$j" "$1.diff_min")")-$(ms "$(tb get "$j" "$1.diff_max")") ms)" >&2
		echo "$(ms "$v") ms"
	else
		echo "n/a (${2:-$(tb get "$j" "$1.failed")})"
	fi
}
tv=$(over tally "")
pv=$(over perf "$pwhy")
gv=$(over gprofng "$gwhy")
note "true itself: $(ms "$(tb get "$j" true.wall_med)") ms"
row "fixed cost: record true - true (ms)" "${tv% ms}" "<= 10" "perf: $pv; gprofng: $gv"
