# SPDX-License-Identifier: MIT
# 25-kernel.sh — what kernel frames cost (docs/kernel.md): `tally record`
# with --kernel and without (--no-kernel), beside `perf record -g` (fp call chains,
# the kernel's included) at the same rate, on a program that spends about
# half its CPU in small system calls (tests/progs/syscally.c) and on the
# CPU-bound workload (few system calls: the kernel event only ticks).
# Wall and CPU time (wait4: the program and tally, which drains the
# kernel's rings), interleaved rounds.
section "25. Kernel frames: tally with --kernel and without, perf -g"

d=$OUT/kernel
rm -rf "$d" && mkdir -p "$d"
${CC:-cc} -O2 -g -o "$BIN/syscally" "$ROOT/tests/progs/syscally.c" || { note "cannot build syscally"; exit 1; }
rounds=${ROUNDS:-11}
[ "$rounds" -gt 7 ] && rounds=7
hz=1000
why=$(perf_why)
note "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for w in syscally cpu; do
	if [ $w = syscally ]; then args=${SYSCALLY_ROUNDS:-600}; else args=$CPU_UNITS; fi
	set -- --cmd bare "$BIN/$w $args" \
		--pre nokernel "rm -rf $d/n.exp" --cmd nokernel "$TALLY record --no-kernel -F $hz -o $d/n.exp -- $BIN/$w $args" \
		--pre kernel "rm -rf $d/k.exp" --cmd kernel "$TALLY record --kernel -F $hz -o $d/k.exp -- $BIN/$w $args"
	[ -z "$why" ] && set -- "$@" --pre perf "rm -f $d/p.data" \
		--cmd perf "perf record -q -F $hz -g -o $d/p.data -- $BIN/$w $args"
	tb time --rounds "$rounds" --base bare --json "$d/$w.json" --dir "$d/$w.runs" "$@"
	get() { tb get "$d/$w.json" "$1"; }
	for c in nokernel kernel $([ -z "$why" ] && echo perf); do
		note "$w: $c: wall x$(fmt "$(get "$c.ratio_med")" 3) of bare, CPU x$(fmt "$(get "$c.cpu_ratio_med")" 3)"
	done
	note "$w: kernel frames: $(grep -h '^kernel\.' "$d/k.exp/log.txt" | tr '\n' ' ')"
	row "kernel frames ($w): CPU ratio to --no-kernel" \
		"$(python3 -c "import sys; a, b = sys.argv[1:3]; print('n/a' if 'n/a' in (a, b) or not a or not b else f'{float(a) / float(b):.3f}')" \
			"$(get kernel.cpu_ratio_med)" "$(get nokernel.cpu_ratio_med)")" "-" \
		"perf -g: CPU x$([ -z "$why" ] && fmt "$(get perf.cpu_ratio_med)" 3 || echo "n/a ($why)") of bare"
done
note "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
