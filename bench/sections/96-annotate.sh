# SPDX-License-Identifier: MIT
# 96-annotate.sh — `tally annotate` of a function in a binary with 50 MB of
# debug information (issue 10: under 2 s, reading only the DWARF it needs).
#
# bench/gen/bigdebug.py writes 36 C files of 4,000 structure types each
# (1.4 MB of .debug_info per file) plus hot_target in main.c; built -O1 -g
# once into $OUT/bigdebug (kept between runs: ~1 min of compiling).  The
# program runs hot_target for ~0.3 s under tally record; the time is the
# median of interleaved runs of `tally annotate EXP hot_target` (source) and
# `--disasm`, the files in the page cache.  The symbolizer reads the CU headers (the address -> CU index)
# and the line table of hot_target's CU, never the types; for scale, the
# time of `readelf --debug-dump=info` on the same binary is shown (a reader
# that parses every DIE).
section "96. Annotate in a binary with 50 MB of debug information"

d=$OUT/bigdebug
GEN_VERSION=1
if [ "$(cat "$d/version" 2>/dev/null)" != $GEN_VERSION ] || [ ! -x "$d/big" ]; then
	rm -rf "$d" && mkdir -p "$d/src" "$d/obj"
	python3 "$BENCH/gen/bigdebug.py" "$d/src" 36 4000 50 || { note "generation failed"; exit 1; }
	t0=$(date +%s)
	ls "$d/src"/cu*.c | xargs -P "$NCPU" -I{} sh -c 'f={}; b=$(basename $f .c); cc -O1 -g -c -o '"$d"'/obj/$b.o $f' &&
		cc -O1 -g -o "$d/big" "$d/src/main.c" "$d"/obj/*.o || { note "build failed"; exit 1; }
	echo $GEN_VERSION >"$d/version"
	note "built $d/big in $(($(date +%s) - t0)) s"
fi
# sizes MB of the sections whose name starts with PREFIX
sizes() {
	readelf -S -W "$d/big" | python3 -c '
import re, sys
t = sum(int(m.group(2), 16) for m in (re.search(r"\] (\S+)\s+\S+\s+\S+\s+\S+\s+([0-9a-f]+)", l) for l in sys.stdin)
        if m and m.group(1).startswith(sys.argv[1]))
print("%.1f" % (t / 1048576))' "$1"
}
dbg=$(sizes .debug_)
info=$(sizes .debug_info)
note "debug sections: $dbg MB (.debug_info $info MB)"

rm -rf "$d/a.exp"
"$TALLY" record -o "$d/a.exp" "$d/big" 300000000 >/dev/null 2>"$d/rec.err" || { note "record failed: $(tail -n 1 "$d/rec.err")"; exit 1; }
tb time --rounds 5 --warmup 1 --quiet --json "$d/t.json" --dir "$d/t" \
	--cmd source "$TALLY annotate $d/a.exp hot_target" \
	--cmd disasm "$TALLY annotate $d/a.exp hot_target --disasm" >/dev/null
tb time --rounds 1 --warmup 0 --quiet --json "$d/r.json" --dir "$d/r" \
	--cmd readelf "readelf --debug-dump=info $d/big" >/dev/null
src=$(tb get "$d/t.json" source.wall_med)
dis=$(tb get "$d/t.json" disasm.wall_med)
full=$(tb get "$d/r.json" readelf.wall_med)
"$TALLY" annotate "$d/a.exp" hot_target | grep -q 'x = x \* 6364136223846793005UL' ||
	note "WARNING: the annotation does not show hot_target's source"
note "annotate (source): $(fmt "$src") s; --disasm: $(fmt "$dis") s; readelf --debug-dump=info: $(fmt "$full") s"
note "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
row "annotate, $dbg MB debug info: source (s)" "$(fmt "$src")" "<= 2" "readelf -wi $(fmt "$full")"
row "annotate, $dbg MB debug info: --disasm (s)" "$(fmt "$dis")" "<= 2" "-"
