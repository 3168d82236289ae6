# test_errors.sh — the two estimates of a share's error (issue 21 item 6):
# --errors=bins (batch means over 16 time bins) checked against the same
# estimate computed here from 16 `tally report --time` slices of the run,
# then compared with --errors (samples): on a run of two phases the bins'
# error is several times the sample count's (which cannot see phases); on
# a stationary run the two agree within a factor of 2.5 (the bins' error
# rests on 16 bins: its own relative spread is about 1/sqrt(30), 18%).
. "$(dirname "$0")/lib.sh"
cc_prog errbins
cd "$T"
"$TALLY" record -o phases.exp ./errbins phases 1 2>/dev/null
"$TALLY" record -o mixed.exp ./errbins mixed 1 2>/dev/null

cat >bins.py <<'PY'
import json, math, subprocess, sys
tally, exp = sys.argv[1], sys.argv[2]
def report(*args):
    return json.loads(subprocess.run([tally, 'report', exp, '-q', '--format', 'json', '--metric', 'samples'] + list(args),
                                     capture_output=True, text=True, check=True).stdout)
b = report('--errors=bins')
s = report('--errors')
e = b['errors']
assert e['estimate'] == 'bins' and e['bins'] == 16, e
K, t0, w = e['bins'], e['from_s'], e['width_s']
# each bin's samples by function, from the model filtered to the bin
per = []
for k in range(K):
    d = report('--time', '%.9f-%.9f' % (t0 + k * w, t0 + (k + 1) * w))
    per.append({r['name']: r for r in d['functions']})
def se(name, kind):
    n = [p[name][kind + '_samples'] if name in p else 0 for p in per]
    N = [p['<Total>'][kind + '_samples'] if '<Total>' in p else 0 for p in per]
    used = [k for k in range(K) if N[k]]
    p = sum(n) / sum(N)
    ss = sum((n[k] - p * N[k]) ** 2 for k in used)
    return 100 * math.sqrt(ss / (len(used) * (len(used) - 1))) / (sum(N) / len(used))
rows = {r['name']: r for r in b['functions']}
srows = {r['name']: r for r in s['functions']}
total = rows['<Total>']['excl_samples']
assert sum(p['<Total>']['excl_samples'] for p in per if '<Total>' in p) == total, 'bins lose samples'
out = {}
for f in ('first_half', 'second_half'):
    for kind in ('excl', 'incl'):
        want, got = se(f, kind), rows[f][kind + '_samples_pct_err_bins']
        print(f, kind, 'bins: tally %.2f, here %.2f; samples: %.2f' % (got, want, srows[f][kind + '_samples_pct_err']))
        assert abs(got - want) < 0.011, (f, kind, got, want)
        out[f + '.' + kind] = got / srows[f][kind + '_samples_pct_err']
print('samples', total, 'ratios bins/samples', out)
json.dump({'total': total, 'ratio': out}, open(exp + '.ratio', 'w'))
PY

check errors_bins_match_time_slices_phases python3 bins.py "$TALLY" phases.exp
check errors_bins_match_time_slices_stationary python3 bins.py "$TALLY" mixed.exp
# two phases: a share's bins error is about 50/sqrt(16) = 12.5 points where
# its sample count's is 50/sqrt(N): at N >= 400 samples, 3 times or more
check errors_bins_see_phases python3 -c '
import json
d = json.load(open("phases.exp.ratio"))
assert d["total"] >= 400, d
assert all(r > 3 for r in d["ratio"].values()), d'
check errors_bins_agree_when_stationary python3 -c '
import json
d = json.load(open("mixed.exp.ratio"))
assert d["total"] >= 400, d
assert all(0.4 < r < 2.5 for r in d["ratio"].values()), d'
check errors_value_checked sh -c '
	"$TALLY" report mixed.exp --errors=time 2>err.txt; rc=$?
	cat err.txt; test $rc -eq 64 && grep -q "errors=time: expected samples" err.txt'
check errors_legend_says_which sh -c '
	"$TALLY" report mixed.exp -q --errors=bins >b.txt && grep -q "+-bins" b.txt &&
	grep -q "^+-bins: one standard error .* 16 bins of" b.txt &&
	"$TALLY" report mixed.exp -q --errors >s.txt && ! grep -q "+-bins" s.txt &&
	"$TALLY" report mixed.exp -q --errors=bins --tree >t.txt && ! grep -q " +-bins " t.txt'

# The HTML page's functions table: each sampled share with its error, the
# estimate said under the table; `tally html --errors=bins` gives report
# --errors=bins' values, the default page report --errors' (within the
# 2 decimals printed).
JS="$E2E/../js"
SHOTS="${TALLY_BUILD:-$T}/test-html"
mkdir -p "$SHOTS"
cat >page.py <<'PY'
import json, re, subprocess, sys
tally, exp, page, est = sys.argv[1:5]
r = json.load(open(page))
assert not r['errors'], r['errors']
rep = json.loads(subprocess.run([tally, 'report', exp, '-q', '--format', 'json', '--errors=' + est],
                                capture_output=True, text=True, check=True).stdout)
key = '_cpu_pct_err' + ('_bins' if est == 'bins' else '')
seen = 0
for f in rep['functions']:
    if f['name'] not in ('first_half', 'second_half'):
        continue
    cells = r['rows'][f['name']]
    for i, kind in enumerate(('excl', 'incl')):
        m = re.search(r'([0-9.]+)%\s*±([0-9.]+)', cells[i])
        print(f['name'], kind, cells[i], f[kind + key])
        assert m and abs(float(m.group(2)) - f[kind + key]) < 0.011, (cells[i], f[kind + key])
        seen += 1
assert seen == 4, r['rows']
want = 'batch means over its shares in 16 bins' if est == 'bins' else "from the function's sample count"
assert want in r['note'], r['note']
PY
if need browser html_errors_bins_in_chromium html_errors_samples_in_chromium; then
	check html_errors_bins_in_chromium sh -c "
		\"$TALLY\" html phases.exp --errors=bins -o \"$SHOTS/errbins.html\" &&
		timeout 100 node \"$JS/check_errors.mjs\" \"$SHOTS/errbins.html\" \"$SHOTS/errbins.png\" >hb.json &&
		python3 page.py \"$TALLY\" phases.exp hb.json bins"
	check html_errors_samples_in_chromium sh -c "
		\"$TALLY\" html phases.exp -o \"$SHOTS/errsamples.html\" &&
		timeout 100 node \"$JS/check_errors.mjs\" \"$SHOTS/errsamples.html\" \"$SHOTS/errsamples.png\" >hs.json &&
		python3 page.py \"$TALLY\" phases.exp hs.json samples"
fi
