# test_stripped.sh — stripped binaries are split into functions by their
# .eh_frame FDEs: a stripped spin has leaf_one, leaf_two and parent as
# separate <static>@0xOFFSET rows at their file offsets with their shares,
# and Debian's stripped gzip has the functions perf's hottest addresses
# fall in, with the shares perf gives them.
. "$(dirname "$0")/lib.sh"
cc_prog spin
cd "$T"
strip -o spin.s spin
"$TALLY" record -F 10000 -o s.exp ./spin.s 0.6 2>/dev/null   # ~5,000 samples: shares within 0.05
"$TALLY" report s.exp --format csv --limit 0 >s.csv
check stripped_functions_at_their_offsets python3 "$E2E/stripped.py" symbols s.csv spin spin.s \
	leaf_one=0.333 leaf_two=0.667 0.05

GZIP_BIN=/usr/bin/gzip
[ -x "$GZIP_BIN" ] || GZIP_BIN=/bin/gzip
if ! command -v perf >/dev/null 2>&1; then
	skip gzip_functions_match_perf "perf is not installed (linux-perf)"
elif ! file -L "$GZIP_BIN" 2>/dev/null | grep -q stripped; then
	skip gzip_functions_match_perf "$GZIP_BIN is not stripped"
else
	head -c 12000000 /dev/urandom | od -An -x >in.txt
	"$TALLY" record -o gz.exp "$GZIP_BIN" -c -6 in.txt >/dev/null 2>&1
	"$TALLY" report gz.exp --format csv --limit 0 >gz.csv
	if perf record -q -o perf.data -F 1000 -- "$GZIP_BIN" -c -6 in.txt >/dev/null 2>perf.err &&
	   perf report -i perf.data --sort dso,sym -F overhead,dso,sym --stdio --percent-limit 0 \
		>perf.txt 2>/dev/null; then
		check gzip_functions_match_perf python3 "$E2E/stripped.py" perf gz.csv perf.txt gzip 3 0.05
	else
		skip gzip_functions_match_perf "perf record failed: $(head -1 perf.err)"
	fi
fi
