# SPDX-License-Identifier: MIT
# 42-make.sh — process-heavy real work: `make -j2` of a small real C project
# (tally's own collector library: 48 objects from src/collector and
# src/format, each a gcc driver, cc1 and as; about 150 processes), from an
# empty build directory each round.  CPU time (user + system, every
# process) bare, under `tally record`, under `tally record -H -s -i` and
# under `perf record -g`, interleaved; the figures are the medians' ratios
# to bare (issue 20: <= 1.10 and <= 1.5 with the tracers).
section "4c. Process-heavy work: make -j2 of a small C project"

d=$OUT/make
rm -rf "$d" && mkdir -p "$d"
R=$ROUNDS
[ "$R" -gt 3 ] && R=3          # 12-15 s of CPU a build, 4 commands: 3 rounds
build() { printf 'make -s -C %s -j2 BUILD=%s/%s %s/%s/lib/libtally-collector.so' "$ROOT" "$d" "$1" "$d" "$1"; }
set -- --cmd bare "$(build b0)" --pre bare "rm -rf $d/b0" \
	--cmd tally "$TALLY record -o $d/t.exp -- $(build b1)" --pre tally "rm -rf $d/t.exp $d/b1" \
	--cmd tracers "$TALLY record -H -s -i -o $d/h.exp -- $(build b2)" --pre tracers "rm -rf $d/h.exp $d/b2"
pwhy=$(perf_why)
[ -z "$pwhy" ] && set -- "$@" --cmd perf "perf record -q -g -o $d/perf.data -- $(build b3)" \
	--pre perf "rm -rf $d/perf.data $d/b3"
tb time --rounds "$R" --warmup 1 --base bare --json "$d/times.json" --dir "$d" "$@"

j=$d/times.json
# per LABEL: median CPU over bare's ("" if it did not run).
ratio() {
	local v b
	v=$(tb get "$j" "$1.cpu_med")
	b=$(tb get "$j" bare.cpu_med)
	[ -n "$v" ] && [ -n "$b" ] &&
		python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$v" "$b"
}
procs=$(ls -d "$d"/t.exp/_*.exp 2>/dev/null | wc -l)
note "bare build: $(tb get "$j" bare.cpu_med) s of CPU; $((procs + 1)) processes in tally's experiment"
pv=$(ratio perf)
t=$(ratio tally); h=$(ratio tracers)
row "make -j2 of a C project: CPU over bare (x)" "${t:-n/a}" "<= 1.10" \
	"perf record -g: ${pv:-n/a (${pwhy:-failed})}"
row "make -j2 of a C project, -H -s -i: CPU over bare (x)" "${h:-n/a}" "<= 1.5" "-"
