# test_datablocks.sh — `tally record --data`'s heap blocks (DATA_BLOCK
# records, docs/dataspace.md): only the blocks a clock sample may have seen
# are written (col_datablocks.c).  A malloc-heavy program's short-lived
# blocks write nothing: hwc.dat stays within what its samples can account
# for (the build before wrote two 40-byte records per allocation); a block
# whose allocating thread holds it back while another thread reads it is
# still named, whether the owner writes it late (it joins the reader) or
# never runs again (it waits for ever; the ending thread writes it).
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog heldblocks -pthread
N=2000000

"$TALLY" record -d -o c.exp ./heldblocks churn $N >/dev/null 2>&1
# Each sample may write its thread's held blocks (at most the 256 slots of
# its table, as 40-byte records) beside its own DATA_REGS and DATA_FRAMES
# (at most 24 + 16 x 64 bytes): the bound is the experiment's own samples.
check datablocks_short_lived_not_written sh -c "
	n=\$(\"\$TALLY\" report c.exp --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"overview\"][\"samples\"])')
	size=\$(stat -c %s c.exp/hwc.dat); bound=\$(( (n + 2) * (192 + 24 + 16 * 64 + 256 * 40) + 65536 ))
	echo \"samples \$n, hwc.dat \$size bytes, bound \$bound ($N allocations: 80 bytes each before)\"
	test \$size -le \$bound"

for mode in joins waits; do
	"$TALLY" record -d -o $mode.exp ./heldblocks $mode 0.5 >/dev/null 2>&1
	"$TALLY" report -q $mode.exp --data-objects --format json >$mode.json 2>/dev/null
done
# read_block's samples are in the block (its size class), at least 0.9 of
# them, though the thread that allocated it never sampled after.
held_named() {
	python3 -c "
import json, sys
rows = [r for r in json.load(open('$1.json'))['data_objects_cpu'] if r['depth'] == 0]
total = sum(r['samples'] for r in rows if r['name'] != '<Total>')
heap = [r for r in rows if r['name'] == '<Heap: 128K-256K bytes>']
print(total, heap)
assert heap and heap[0]['top_function'].split(' ')[0] == 'read_block', rows
assert heap[0]['samples'] >= 0.9 * total and heap[0]['samples'] >= 100, rows"
}
check datablocks_owner_joins_block_named held_named joins
check datablocks_owner_waits_block_named_at_end held_named waits
