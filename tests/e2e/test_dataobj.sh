# test_dataobj.sh — data objects from clock samples (tally record --data,
# docs/dataspace.md): tests/progs/dataobjs.c reads a global array of
# structures (one member only), a heap array and a stack array, each in
# its own phase function.  Each object's share of the CPU is its phase's,
# within bounds from the same experiment (dataobj.py); the hot member holds
# the array's time, the cold ones none; the layout view lists the
# structure's members by offset; without -H the heap array is named by
# its size class; without --data nothing is added to the experiment.
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog dataobjs
CHK="python3 $E2E/dataobj.py"
ROUNDS=60000

"$TALLY" record -d -H -o d.exp ./dataobjs $ROUNDS >/dev/null 2>&1
"$TALLY" report -q d.exp --format json >f.json 2>/dev/null
"$TALLY" report -q d.exp --data-objects --format json >o.json 2>/dev/null
"$TALLY" report -q d.exp --data-layout --format json >l.json 2>/dev/null
check dataobj_global_array_is_its_phase $CHK f.json o.json l.json object parts walk_parts
check dataobj_hot_member_has_the_time $CHK f.json o.json l.json member parts '{struct particle}.hot'
check dataobj_heap_block_named_by_allocator $CHK f.json o.json l.json object '<Heap: make_heap>' sum8
check dataobj_stack_array_is_its_frame $CHK f.json o.json l.json object '<Stack: walk_stack>' walk_stack
check dataobj_layout_members_by_offset $CHK f.json o.json l.json layout 'struct particle' hot
check dataobj_every_sample_has_its_registers $CHK f.json o.json l.json total
# A member row as a filter: the function view of exactly its samples.
"$TALLY" report -q d.exp --data-object '{struct particle}.hot' -n --format json >fm.json 2>/dev/null
check dataobj_filter_by_member python3 -c "
import json
objs = json.load(open('o.json'))['data_objects_cpu']
i = [k for k, r in enumerate(objs) if r['depth'] == 0 and r['name'] == 'parts'][0]
hot = [r for r in objs[i + 1:] if r['depth'] == 1 and r['name'] == '{struct particle}.hot'][0]
fs = json.load(open('fm.json'))['functions']
total = [r for r in fs if r['name'] == '<Total>'][0]
walk = [r for r in fs if r['name'].split(' ')[0] == 'walk_parts'][0]
print(hot['samples'], total['excl_samples'], walk['excl_samples'])
assert hot['samples'] >= 20 and total['excl_samples'] == hot['samples'], (hot, total)
assert walk['excl_samples'] >= 0.9 * hot['samples'], walk"
check dataobj_text_view sh -c "\"\$TALLY\" report -q d.exp --data-objects >o.txt 2>/dev/null; cat o.txt;
	grep -q '^Data objects by CPU time' o.txt && grep -Eq ' +\{struct particle\}\.hot' o.txt"

# Without -H the heap array is named by its size class (256 KiB), not by
# its allocator, and no heap metric appears.
"$TALLY" record -d -o nh.exp ./dataobjs $((ROUNDS / 4)) >/dev/null 2>&1
"$TALLY" report -q nh.exp --format json >nf.json 2>/dev/null
"$TALLY" report -q nh.exp --data-objects --format json >no.json 2>/dev/null
check dataobj_no_heap_tracing_names_size_class sh -c "
	$CHK nf.json no.json l.json object '<Heap: 128K-256K bytes>' sum8 && ! grep -q 'Heap: make_heap' no.json &&
	test ! -e nh.exp/heap.dat && ! grep -q heap.bytes nf.json"

# Without --data: no register records, no hwc.dat at all.
"$TALLY" record -o n.exp ./dataobjs $((ROUNDS / 4)) >/dev/null 2>&1
check dataobj_nothing_without_data sh -c "ls n.exp; test ! -e n.exp/hwc.dat && test -s d.exp/hwc.dat &&
	\"\$TALLY\" report -q n.exp --data-objects 2>/dev/null | grep -q 'No data objects'"
