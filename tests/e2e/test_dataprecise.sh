# test_dataprecise.sh — where `tally record --data` takes its data
# addresses from (docs/dataspace.md, "Recording precise samples"): a
# precise memory event the PMU offers (Intel mem-loads, AMD IBS op), else
# the clock samples' registers.  The decision and its reason are in the
# log (data.source) and the overview; a crafted PMU directory
# (TALLY_PMU_SYSFS) drives the decision through sysfs parsing and the open
# that refuses it; on a machine with a precise event, the objects of
# tests/progs/dataphases.c come from its samples, each with the level that
# served it (the checks that need one skip with the reason elsewhere).
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog dataphases
printf 'int main(void){return 0;}\n' >t.c && cc -o t t.c

src_of() { sed -n 's/^data\.source: //p' "$1/log.txt"; }

# The decision is logged and shown; without --data there is none.
"$TALLY" record -d -o d.exp ./t >/dev/null 2>&1
"$TALLY" record -o n.exp ./t >/dev/null 2>&1
check dataprecise_decision_logged_and_shown sh -c "
	src=\$(sed -n 's/^data\.source: //p' d.exp/log.txt); echo \"log: \$src\"; test -n \"\$src\" &&
	\"\$TALLY\" report d.exp | grep -F \"Data objects from  \$src\" &&
	\"\$TALLY\" report d.exp --format json | python3 -c '
import json, sys
v = json.load(sys.stdin)[\"overview\"][\"data_source\"]
assert v.startswith((\"precise \", \"clock samples \")), v'"
check dataprecise_no_decision_without_data sh -c "! grep '^data\.source' n.exp/log.txt &&
	! \"\$TALLY\" report n.exp | grep 'Data objects from'"

# A crafted Intel PMU: mem-loads placed by its formats (event 0xcd, umask
# 0x1 into config, ldlat into config1) and opened; its type does not exist,
# so the kernel refuses it, and the reason is said.
mkdir -p pmu/cpu/events pmu/cpu/format
echo 65000 >pmu/cpu/type
echo 'event=0xcd,umask=0x1,ldlat=3' >pmu/cpu/events/mem-loads
echo 'config:0-7' >pmu/cpu/format/event
echo 'config:8-15' >pmu/cpu/format/umask
echo 'config1:0-15' >pmu/cpu/format/ldlat
TALLY_PMU_SYSFS=$T/pmu "$TALLY" record -d -o c.exp ./t >/dev/null 2>&1
check dataprecise_crafted_pmu_refusal_said sh -c "src=\$(sed -n 's/^data\.source: //p' c.exp/log.txt); echo \"\$src\";
	echo \"\$src\" | grep -F 'clock samples (the registers at each sample): mem-loads (PMU cpu, type 65000, config 0x1cd, config1 0x3) would not open' &&
	test \$(grep -c '^counter' c.exp/log.txt) -eq 0"
# A crafted PMU that opens: its type is the kernel's software events (1),
# so mem-loads is chosen and recorded as a counter; with -c's 8 counters
# taken there is no room for it, and the log says so and falls back to the
# clock samples (before: it said precise samples and none were recorded).
mkdir -p sw/cpu/events sw/cpu/format
echo 1 >sw/cpu/type
echo 'event=0x0,umask=0x0,ldlat=3' >sw/cpu/events/mem-loads
cp pmu/cpu/format/event pmu/cpu/format/umask pmu/cpu/format/ldlat sw/cpu/format/
TALLY_PMU_SYSFS=$T/sw "$TALLY" record -d -o sw.exp ./t >/dev/null 2>&1
TALLY_PMU_SYSFS=$T/sw "$TALLY" record -d -c page-faults -c minor-faults -c major-faults -c context-switches \
	-c cpu-migrations -c page-faults/7 -c minor-faults/7 -c major-faults/7 -o full.exp ./t >/dev/null 2>&1
if [ "$(src_of sw.exp | cut -c1-8)" != "precise " ]; then
	skip dataprecise_full_counters_said "a software event would not open as mem-loads here: $(src_of sw.exp)"
else
	check dataprecise_full_counters_said sh -c "src=\$(sed -n 's/^data\.source: //p' full.exp/log.txt); echo \"\$src\";
		echo \"\$src\" | grep -F 'clock samples (the registers at each sample): the -c counters took all 8, none left for precise mem-loads samples (PMU cpu, type 1' &&
		grep -q '^counter: mem-loads' sw.exp/log.txt && ! grep -q '^counter: mem-loads' full.exp/log.txt"
fi
# A term the PMU has no format for; an SPE PMU (its samples in the AUX
# area); no PMU directory at all.
rm pmu/cpu/format/ldlat
TALLY_PMU_SYSFS=$T/pmu "$TALLY" record -d -o f.exp ./t >/dev/null 2>&1
mkdir -p spe/arm_spe_0 && echo 9 >spe/arm_spe_0/type
TALLY_PMU_SYSFS=$T/spe "$TALLY" record -d -o s.exp ./t >/dev/null 2>&1
TALLY_PMU_SYSFS=$T/none "$TALLY" record -d -o z.exp ./t >/dev/null 2>&1
check dataprecise_unreadable_term_said sh -c "src=\$(sed -n 's/^data\.source: //p' f.exp/log.txt); echo \"\$src\";
	echo \"\$src\" | grep -F \"cpu/mem-loads: term 'ldlat' has no format tally reads\""
check dataprecise_spe_not_read_said sh -c "src=\$(sed -n 's/^data\.source: //p' s.exp/log.txt); echo \"\$src\";
	echo \"\$src\" | grep -F 'arm_spe_0 is here, but its samples come through the AUX area'"
check dataprecise_no_pmu_said sh -c "src=\$(sed -n 's/^data\.source: //p' z.exp/log.txt); echo \"\$src\";
	echo \"\$src\" | grep -F \"no precise memory event (none of cpu/events/mem-loads, cpu_core/events/mem-loads, ibs_op, arm_spe_0 in $T/none)\""

# With a precise event: dataphases' global arrays from its samples.  The
# random chase through 8 MiB is served beyond L2 far more often than the
# stream through 512 KiB, which the hardware prefetches; each array's
# samples are at the function that reads it.
if need pmu_mem dataprecise_objects_from_precise_samples dataprecise_chase_served_beyond_l2; then
	"$TALLY" record -d -o p.exp ./dataphases 2 "$T/mapped.bin" >out.txt 2>/dev/null
	"$TALLY" report -q p.exp --data-objects --format json >o.json 2>/dev/null
	check dataprecise_objects_from_precise_samples python3 -c "
import json
rows = [r for r in json.load(open('o.json'))['data_objects'] if r['counter'] != 'cpu']
by = {r['name']: r for r in rows}
print(sorted(by))
for name, fn in (('streamed', 'walk_stream'), ('chased', 'walk_chase')):
    r = by[name]
    assert r['samples'] >= 20 and r['top_function'].split(' ')[0] == fn and r['top_pct'] >= 90, r"
	check dataprecise_chase_served_beyond_l2 python3 -c "
import json
by = {r['name']: r for r in json.load(open('o.json'))['data_objects'] if r['counter'] != 'cpu'}
far = lambda r: sum(r.get(k, 0) for k in ('from_llc', 'from_dram', 'from_remote'))
print(far(by['streamed']), far(by['chased']))
assert far(by['chased']) >= 50 and far(by['chased']) > 2 * far(by['streamed']), (by['streamed'], by['chased'])"
fi
