/* SPDX-License-Identifier: MIT
 *
 * model_dataspace.c — dataspace profiling (docs/dataspace.md): each precise
 * memory-access sample (DATA_SAMPLE) counts its events at its instruction's
 * stack, in its counter's metric, and at the data object its address falls
 * in.  Called once per process by model_build.c.
 *
 * A data address is, in this order:
 *   <Unknown: no address>   the PMU gave none (EXP_DATA_ADDR_UNKNOWN);
 *   <Stack>                 in the sampled thread's stack (EXP_DATA_STACK);
 *   NAME (object)           a data symbol of a loaded object (its ELF
 *                           symbols: a global or file-static variable);
 *   <Unknown: no symbol>    in an object's segments, but in no symbol;
 *   <Heap: FUNC>            in a heap block live at the sample's time (with
 *                           -H), FUNC the function that allocated it; the
 *                           blocks are the heap events' and --data's
 *                           DATA_BLOCK records' (without -H: <Heap: 2K-4K
 *                           bytes>, by size class);
 *   <Unknown: anonymous>    anywhere else (mmap, another allocator).
 * Each object also counts its samples by the level that served them (L1,
 * L2, LLC, DRAM ...: the sample's data source, format/exp_perf_mem.h).
 * A global's structure member and <Scalars> (a variable of no aggregate
 * type) come from its DWARF type, as for a clock sample's (model_data_global,
 * shared with model_dataclock.c, as are the members' counts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_build_int.h"

/* The data object `name` of `object` in metric mm, made on first use;
 * its index, or -1 if out of memory. */
long model_data_object_of(struct build *b, const char *name, const char *object, uint64_t size, int mm)
{
	struct model *m = b->m;
	uint64_t key = model_hash_str(model_hash_str((uint64_t)mm + 1, name), object) | 1;

	for (;;) {
		uint64_t *v = model_map_get(&b->data_object_of, key);
		if (!v)
			break;
		struct model_data_object *o = &m->data_objects[*v - 1];
		if (o->metric == (uint32_t)mm && !strcmp(o->name, name) && !strcmp(o->object, object))
			return (long)*v - 1;
		key = model_hash64(key) | 1;
	}
	if (exp_grow(&m->data_objects, &b->cap_data_objects, m->ndata_objects, sizeof(*m->data_objects)))
		return -1;
	struct model_data_object *o = &m->data_objects[m->ndata_objects];
	memset(o, 0, sizeof(*o));
	o->name = strdup(name);
	o->object = strdup(object);
	o->size = size;
	o->metric = (uint32_t)mm;
	if (!o->name || !o->object || !model_map_put(&b->data_object_of, key, m->ndata_objects + 1, NULL))
		return -1;
	return (long)m->ndata_objects++;
}

/* The model's data type for sym type t (made on first use); -1 out of memory. */
static long type_of(struct build *b, const struct sym_dtype *t)
{
	struct model *m = b->m;
	uint64_t key = model_hash64((uint64_t)(uintptr_t)t) | 1;
	uint64_t *v = model_map_get(&b->data_type_of, key);

	if (v)
		return (long)*v - 1;
	if (exp_grow(&m->data_types, &b->cap_data_types, m->ndata_types, sizeof(*m->data_types)))
		return -1;
	struct model_data_type *d = &m->data_types[m->ndata_types];
	memset(d, 0, sizeof(*d));
	d->name = strdup(t->name);
	d->size = t->size;
	d->fields = calloc(t->nfields + 1, sizeof(*d->fields));
	if (!d->name || !d->fields) {
		free(d->name);
		free(d->fields);
		return -1;
	}
	d->nfields = t->nfields;
	for (uint32_t i = 0; i < t->nfields; i++) {
		d->fields[i].offset = t->fields[i].offset;
		d->fields[i].size = t->fields[i].size;
		if (!(d->fields[i].name = strdup(t->fields[i].name)))
			return -1;
	}
	if (!model_map_put(&b->data_type_of, key, m->ndata_types + 1, NULL))
		return -1;
	return (long)m->ndata_types++;
}

int model_data_member_add(struct build *b, long obj, const struct sym_dmember *dm, uint64_t ns)
{
	struct model *m = b->m;
	long t = type_of(b, dm->type);
	bool inserted;

	if (t < 0)
		return -1;
	struct model_data_type *ty = &m->data_types[t];
	if (m->data_objects[obj].metric == MODEL_CPU) {     /* the data layout is by CPU time */
		ty->value += ns;
		ty->samples++;
		if (dm->field >= 0) {
			ty->fields[dm->field].value += ns;
			ty->fields[dm->field].samples++;
		}
	}
	uint64_t key = model_hash64(((uint64_t)obj << 32 | (uint64_t)t) * 65599 + (uint64_t)(dm->field + 1)) | 1;
	uint64_t *v = model_map_put(&b->data_member_of, key, 0, &inserted);
	if (!v)
		return -1;
	if (inserted) {
		if (exp_grow(&m->data_members, &b->cap_data_members, m->ndata_members, sizeof(*m->data_members)))
			return -1;
		m->data_members[m->ndata_members] =
			(struct model_data_member){ (uint32_t)obj, (uint32_t)t, dm->field, 0, 0 };
		*v = ++m->ndata_members;
	}
	m->data_members[*v - 1].value += ns;
	m->data_members[*v - 1].samples++;
	return 0;
}

bool model_data_global(const struct exp_proc *p, uint64_t ea, char *name, size_t len, const char **object,
		       uint64_t *size, struct sym_dmember *dm)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct exp_map_ev *mp = &p->maps[i];
		const struct sym_data *sd = mp->unmap || !mp->path ? NULL : sym_data_get(mp->path);
		if (!sd || !sym_data_contains(sd, ea - mp->bias))
			continue;
		const char *slash = strrchr(mp->path, '/');
		*object = slash ? slash + 1 : mp->path;
		const struct sym_data_sym *sym = sym_data_lookup(sd, ea - mp->bias);
		if (!sym) {
			snprintf(name, len, "<Unknown: no symbol>");
			return true;
		}
		*size = sym->size;
		snprintf(name, len, "%s", sym->name);
		if (sym_dtype_resolve(mp->path, sym->start, ea - mp->bias - sym->start, dm) == 0 && dm->scalar) {
			snprintf(name, len, "<Scalars>");
			*size = 0;
			dm->type = NULL;
		}
		return true;
	}
	return false;
}

/* Name the data object of sample s: into name/object/size, *dm its member
 * (type NULL if none). */
static void classify(struct build *b, struct proc_ctx *c, const struct exp_data_sample *s,
		     const struct model_heap_blocks *blocks, char *name, size_t len,
		     const char **object, uint64_t *size, struct sym_dmember *dm)
{
	*object = "";
	*size = 0;
	memset(dm, 0, sizeof(*dm));
	if (s->flags & EXP_DATA_ADDR_UNKNOWN) {
		snprintf(name, len, "<Unknown: no address>");
		return;
	}
	if (s->flags & EXP_DATA_STACK) {
		snprintf(name, len, "<Stack>");
		return;
	}
	if (model_data_global(c->p, s->addr, name, len, object, size, dm))
		return;
	if (model_heap_block_name(b, c, blocks, s->addr, s->time_ns, name, len, size))
		return;
	snprintf(name, len, "<Unknown: anonymous>");
}

int model_data_access_add(struct build *b, long obj, uint32_t func, uint64_t value)
{
	struct model *m = b->m;
	bool inserted;
	uint64_t *v = model_map_put(&b->data_access_of, ((uint64_t)obj + 1) << 32 | func, 0, &inserted);

	if (!v)
		return -1;
	if (inserted) {
		if (exp_grow(&m->data_access, &b->cap_data_access, m->ndata_access, sizeof(*m->data_access)))
			return -1;
		m->data_access[m->ndata_access] = (struct model_data_access){ (uint32_t)obj, func, 0 };
		*v = ++m->ndata_access;
	}
	m->data_access[*v - 1].value += value;
	return 0;
}

int model_build_dataspace(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;
	char name[512];
	struct model_heap_blocks blocks = { 0 };
	int rc = 0;

	if (!p->ndsamples)
		return 0;
	if ((p->nheap || p->ndblocks) && model_heap_blocks_of(p, true, &blocks))
		return -1;
	for (size_t i = 0; i < p->ndsamples && !rc; i++) {
		const struct exp_data_sample *s = &p->dsamples[i].s;
		const struct exp_counter_def *d = &p->counter_defs[s->index];
		const char *object;
		uint64_t size;
		long e;
		if (!(p->counter_mask & (1u << s->index))) {
			b->m->unknown_counters++;
			continue;
		}
		int mm = model_metric_counter(d->name, d->type, d->config);
		if (mm < 0 || !model_keep(c, o, s->tid, s->time_ns))
			continue;
		if (model_add(b, c, o, s->tid, s->time_ns, s->stack_id, (enum model_metric)mm, s->count, &e)) {
			rc = -1;
			break;
		}
		struct sym_dmember dm;
		classify(b, c, s, &blocks, name, sizeof(name), &object, &size, &dm);
		long obj = model_data_object_of(b, name, object, size, mm);
		const struct model_entry *en = &b->m->entries[e];
		if (obj < 0 || model_data_access_add(b, obj, en->n ? en->funcs[en->n - 1] : 0, s->count) ||
		    (dm.type && model_data_member_add(b, obj, &dm, s->count))) {
			rc = -1;
			break;
		}
		b->m->data_objects[obj].value += s->count;
		b->m->data_objects[obj].samples++;
		b->m->data_objects[obj].level_samples[exp_mem_level_of(p->dsamples[i].data_src)]++;
	}
	model_heap_blocks_free(&blocks);
	return rc;
}
