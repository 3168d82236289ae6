# SPDX-License-Identifier: MIT
# 50-fidelity.sh — sampling fidelity: the CPU time the samples account for
# (the sum of `tally export EXP --format collapsed` weights, in ns) plus the
# collector's own (`collector_cpu_s` of the overview: handlers, in no sample)
# over the user + system CPU time that `/usr/bin/time -f '%U %S'` reports for
# the whole `tally record` command, on the CPU-bound workload with 1 and 4 threads
# (runs interleaved; median and range over the rounds).
section "5. Sampling fidelity (sampled + collector CPU / user+system CPU of tally record)"

d=$OUT/fidelity
rm -rf "$d" && mkdir -p "$d"
rounds=$(((ROUNDS + 1) / 2))
[ $rounds -ge 3 ] || rounds=3
half=$(python3 -c "import sys; print(round(float(sys.argv[1]) / 2, 1))" "$CPU_UNITS")
for r in $(seq "$rounds"); do
	for thr in 1 4; do
		# 4 threads on this machine's CPUs: half the work each, about the same wall time.
		if [ $thr = 1 ]; then u=$CPU_UNITS; else u=$half; fi
		e=$d/t$thr.$r.exp
		if /usr/bin/time -f '%U %S' -o "$d/time.$thr.$r" "$TALLY" record -o "$e" -- "$BIN/cpu" "$u" $thr \
			>"$d/out.$thr.$r" 2>"$d/err.$thr.$r"; then
			ns=$("$TALLY" export "$e" --format collapsed 2>/dev/null | awk '{s += $NF} END {printf "%.0f", s}')
			col=$("$TALLY" report "$e" --format json 2>/dev/null |
				python3 -c 'import json, sys; print(json.load(sys.stdin)["overview"]["collector_cpu_s"])')
			read -r u s <"$d/time.$thr.$r"
			python3 -c "import sys; ns, c, u, s = map(float, sys.argv[1:]); print((ns / 1e9 + c) / (u + s), ns / 1e9, c, u + s)" \
				"$ns" "${col:-0}" "$u" "$s" >>"$d/ratio.$thr"
		fi
		rm -rf "$e"
	done
done
for thr in 1 4; do
	if [ -s "$d/ratio.$thr" ]; then
		read -r med lo hi <<<"$(cut -d' ' -f1 "$d/ratio.$thr" | tb stats)"
		note "$thr thread(s): (sampled + collector)/time(1) = $(fmt "$med" 4) [$(fmt "$lo" 4)-$(fmt "$hi" 4)] over $(wc -l <"$d/ratio.$thr") runs;" \
			"e.g. $(tail -n 1 "$d/ratio.$thr" | awk '{printf "%.3f s sampled + %.3f s collector of %.2f s user+system", $2, $3, $4}')"
		row "fidelity, CPU-bound $thr thread(s) (sampled+collector/CPU)" "$(fmt "$med" 4) [$(fmt "$lo" 4)-$(fmt "$hi" 4)]" "within 3% of 1" "-"
	else
		row "fidelity, CPU-bound $thr thread(s) (sampled+collector/CPU)" "n/a (tally record failed: $(tail -n 1 "$d/err.$thr.1"))" "within 3% of 1" "-"
	fi
done
