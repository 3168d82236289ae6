# test_dataphases.sh — data objects from clock samples (tally record
# --data, docs/dataspace.md) against the program's own measure:
# tests/progs/dataphases.c reads one object per phase (a global array in
# order, a global array at random, a heap array, a buffer in its caller's
# frame, a mapped file), times each phase by its thread's CPU clock and
# prints the times; each object's share of tally's CPU must be within 0.05
# of its phase's share of the process's CPU (dataphases.py).
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog dataphases
CHK="python3 $E2E/dataphases.py"
BUDGET=2

# Without -H: heap blocks by their size class.
"$TALLY" record -d -o d.exp ./dataphases $BUDGET "$T/mapped.bin" >out.txt 2>/dev/null
"$TALLY" report -q d.exp --data-objects --format json >o.json 2>/dev/null
check dataphases_streamed_global_share $CHK out.txt o.json stream streamed walk_stream
check dataphases_random_global_share $CHK out.txt o.json chase chased walk_chase
check dataphases_heap_by_size_class $CHK out.txt o.json heap '<Heap: 128K-256K bytes>' walk_heap
# The heap array's member: walk_heap's pointer (DWARF: its register at the
# access) says struct rec; hot holds the block's samples, cold none, and
# the layout lists both.
"$TALLY" report -q d.exp --data-layout --format json >l.json 2>/dev/null
check dataphases_heap_hot_member_from_dwarf python3 -c "
import json
objs = json.load(open('o.json'))['data_objects_cpu']
i = [k for k, r in enumerate(objs) if r['depth'] == 0 and r['name'] == '<Heap: 128K-256K bytes>'][0]
mem = []
for r in objs[i + 1:]:
    if r['depth'] == 0: break
    mem.append((r['name'], r['samples']))
lay = json.load(open('l.json'))['data_layout']
j = [k for k, r in enumerate(lay) if r['depth'] == 0 and r['name'] == '{struct rec}'][0]
rows = []
for r in lay[j + 1:]:
    if r['depth'] == 0: break
    rows.append((r['name'], r['samples']))
print(objs[i]['samples'], mem, rows)
hot = dict(mem).get('{struct rec}.hot', 0)
assert hot >= 0.95 * objs[i]['samples'] and objs[i]['samples'] >= 20, (hot, objs[i])
assert all(n == 0 for m, n in mem if m != '{struct rec}.hot'), mem
assert dict(rows).get('.cold') == 0 and dict(rows).get('.hot', 0) >= hot, rows"
# The buffer is stack_owner's, read by its callee: named by the frame it
# lies in (the sample's CFAs), not by the function reading it.
check dataphases_stack_by_owning_frame $CHK out.txt o.json stack '<Stack: stack_owner>' sum_buf
# The file the program mapped, by its path (the collector's mmap records).
check dataphases_mapped_file_by_path $CHK out.txt o.json file "<File: $T/mapped.bin>" walk_file

# The function view filtered by a data object: exactly its samples.
"$TALLY" report -q d.exp --data-object '<Stack: stack_owner>' -n --format json >fs.json 2>/dev/null
check dataphases_functions_filtered_by_object $CHK --filter o.json fs.json '<Stack: stack_owner>' sum_buf
"$TALLY" report -q d.exp --data-object chased -n --format json >fc.json 2>/dev/null
check dataphases_functions_filtered_by_global $CHK --filter o.json fc.json chased walk_chase
# The HTML page carries both tables (as report's JSON) and shows them in
# a tab of their own; a page without --data has no such tab.
"$TALLY" html d.exp -o d.html 2>/dev/null
check dataphases_html_embeds_data_objects python3 -c "
import json, re
from tally_page import page_json
s = open('d.html').read()
D = json.loads(page_json(s))
want = json.load(open('o.json'))['data_objects_cpu']
got = D['dataObjects']['data_objects_cpu']
print(len(got), 'rows;', [r['name'] for r in got][:6])
assert got == want and 'dataLayout' in D and 'record --data' not in D.get('dataNote', 'x')"
if need browser dataphases_html_data_tab_in_chromium; then
	"$TALLY" record -o n.exp ./dataphases 0.2 "$T/n.bin" >/dev/null 2>&1
	"$TALLY" html n.exp -o n.html 2>/dev/null
	check dataphases_html_data_tab_in_chromium sh -c "
		timeout 100 node \"$E2E/../js/check_dataobj.mjs\" d.html >r.json &&
		timeout 100 node \"$E2E/../js/check_dataobj.mjs\" n.html >rn.json &&
		python3 -c \"
import json
r, rn = json.load(open('r.json')), json.load(open('rn.json'))
objs = json.load(open('o.json'))['data_objects_cpu']
print(r['rows'][:6], rn)
assert r['tab_shown'] and not r['errors'] and not rn['tab_shown'] and not rn['errors']
want = [[o['name'], '%.2f' % o['pct'], o['depth'] > 0] for o in objs]
assert r['rows'] == want, (r['rows'], want)
assert 'Accessed most by' in r['heads']\""
fi
# Damaged records of the new types: each costs only itself, said with its
# file, offset and cause; the rest of the view stays (a frames record of 0
# frames, a file record of 0 bytes).  The file is walked record by record:
# a scan of every 8 bytes once damaged a word inside a sample that looked
# like a file record, and the check failed.
cp -r d.exp bad.exp
python3 -c "
import struct, sys
p = 'bad.exp/hwc.dat'
b = bytearray(open(p, 'rb').read())
done = set()
off = 64                                   # record by record: the header, then
while off + 4 <= len(b):                   # blocks of 16 KiB, each zero-padded
    w = struct.unpack_from('<I', b, off)[0]
    if w == 0:
        off = (off // 16384 + 1) * 16384
        continue
    t, l = w >> 24, w & 0xffffff
    if l < 8 or off + l > len(b):
        break
    if t == 38 and 38 not in done and l >= 40 and struct.unpack_from('<I', b, off + 16)[0] * 16 + 24 == l:
        struct.pack_into('<I', b, off + 16, 0)
        done.add(38)
    elif t == 39 and 39 not in done and l >= 48 and struct.unpack_from('<Q', b, off + 24)[0]:
        struct.pack_into('<Q', b, off + 24, 0)
        done.add(39)
    off += l
open(p, 'wb').write(b)
sys.exit(0 if done == {38, 39} else 1)" && bad_ok=1 || bad_ok=0
check dataphases_damaged_records_said sh -c "test $bad_ok = 1 &&
	! \"\$TALLY\" check bad.exp >c.txt 2>&1; cat c.txt;
	grep -q 'hwc.dat: at 0x[0-9a-f]*: data-frames record of 0 frames' c.txt &&
	grep -q 'hwc.dat: at 0x[0-9a-f]*: data-file record with range' c.txt &&
	\"\$TALLY\" report -q bad.exp --data-objects 2>w.txt | grep -q '<Stack: stack_owner>' &&
	grep -q 'damaged places' w.txt"
check dataphases_filter_unknown_object_refused sh -c "
	! \"\$TALLY\" report -q d.exp --data-object no_such_thing >/dev/null 2>e.txt; cat e.txt;
	grep -q 'no_such_thing: no clock sample accessed it' e.txt"
