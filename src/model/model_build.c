/* SPDX-License-Identifier: MIT
 *
 * model_build.c — from loaded experiments to the model (see model.h): the
 * driver.  model_build_int.h lists the files it drives.
 *
 * One pass per process: its address space is rebuilt from its map events
 * (each change starts an epoch), then each kind of event is added: clock
 * samples and sync waits here, I/O, heap and arcs by their own files.  Each
 * new (stack, epoch) is symbolized once (model_frames.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_launch.h"
#include "model/model_build_int.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The kernel functions the experiment copied (its founder's kernel.dat),
 * as the object [kernel] at their addresses, from the start. */
static int map_kernel(struct build *b, struct proc_ctx *c)
{
	const struct exp_experiment *e = b->m->procs[c->index].exp;
	const struct exp_proc *f = e ? &e->procs[0] : c->p;
	char key[4400];
	int rc = -1;

	if (!f->nksyms)
		return 0;
	uint64_t *addrs = malloc(f->nksyms * sizeof(*addrs)), *sizes = malloc(f->nksyms * sizeof(*sizes));
	const char **names = malloc(f->nksyms * sizeof(*names));
	if (addrs && sizes && names) {
		for (size_t i = 0; i < f->nksyms; i++) {
			addrs[i] = f->ksyms[i].addr;
			sizes[i] = f->ksyms[i].size;
			names[i] = f->ksyms[i].name;
		}
		snprintf(key, sizeof(key), "%s/%s", f->dir, exp_file_name(EXP_FILE_KERNEL));
		struct sym_object *o = sym_object_kernel(key, MODEL_KERNEL_OBJECT, f->nksyms, addrs, sizes,
							 names);
		if (o) {
			const struct exp_ksym_ev *last = &f->ksyms[f->nksyms - 1];
			sym_space_map_object(c->space, 0, f->ksyms[0].addr, last->addr + last->size, o);
			rc = 0;
		}
	}
	free(addrs);
	free(sizes);
	free(names);
	return rc;
}

/* The process's address space over time, and the times it changed. */
static int build_space(struct build *b, struct proc_ctx *c)
{
	const struct exp_proc *p = c->p;
	struct model *m = b->m;
	char archive[4300];

	c->space = sym_space_new();
	c->epochs = malloc((p->nmaps + 2 * p->ndyn + 1) * sizeof(*c->epochs));
	if (!c->space || !c->epochs)
		return -1;
	snprintf(archive, sizeof(archive), "%s/%s",
		 m->procs[c->index].exp ? m->procs[c->index].exp->path : p->dir, EXP_ARCHIVE_DIR);
	sym_space_set_archive(c->space, archive);
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct exp_map_ev *e = &p->maps[i];
		if (e->unmap)
			sym_space_unmap(c->space, e->time_ns, e->start);
		else
			sym_space_map(c->space, e->time_ns, e->start, e->end, e->bias, e->path,
				      e->build_id, e->build_id_len, e->flags);
		const char *base = e->unmap ? NULL : strrchr(e->path, '/');
		c->omp |= !e->unmap && model_omp_runtime_object(base ? base + 1 : e->path);
		c->epochs[c->nepochs++] = e->time_ns;
	}
	/* Dynamic code: an object of its own per function, mapped from its
	 * load to its unload. */
	for (size_t i = 0; i < p->ndyn; i++) {
		const struct exp_dyn_ev *e = &p->dyn[i];
		char key[4400], display[64];
		unsigned src = e->flags & EXP_DYN_SOURCE_MASK;
		snprintf(key, sizeof(key), "%s/dyn.dat#%zu", p->dir, i);
		if (src == EXP_DYN_PERFMAP)
			snprintf(display, sizeof(display), "perf-%u.map", p->pid);
		else if (src == EXP_DYN_JITDUMP)
			snprintf(display, sizeof(display), "jit-%u.dump", p->pid);
		else
			snprintf(display, sizeof(display), "[dynamic]");
		struct sym_object *o = sym_object_dynamic(key, display, e->name, e->addr, e->size, e->code,
							  e->code_len, (const uint32_t (*)[2])e->lines, e->nlines);
		if (!o)
			return -1;
		sym_space_map_object(c->space, e->time_ns, e->addr, e->addr + e->size, o);
		c->epochs[c->nepochs++] = e->time_ns;
		if (e->unload_ns != UINT64_MAX) {
			sym_space_unmap(c->space, e->unload_ns, e->addr);
			c->epochs[c->nepochs++] = e->unload_ns;
		}
	}
	if (map_kernel(b, c) || model_java_proc(b, c) || (c->omp && model_omp_tail_scan(b, c)))
		return -1;
	qsort(c->epochs, c->nepochs, sizeof(*c->epochs), cmp_u64);
	return 0;
}

/* With an OpenMP runtime in the user view, every sample is noted first,
 * filtered out or not (model_omp.c places workers' events by the samples of
 * the threads that open regions); then the samples are added. */
static int build_samples(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;

	if (model_samples_reserve(b, c, o))
		return -1;
	for (size_t i = 0; c->omp && MODEL_STRUCTURE_RULES(o) && i < p->nsamples; i++) {
		const struct exp_sample *s = &p->samples[i];
		long e = model_entry_for(b, c, s->stack_id, s->time_ns, o);
		if (e < 0 || model_omp_note(b, c, s->tid, s->time_ns, e))
			return -1;
	}
	model_omp_ready(b, c);
	if (model_add_samples(b, c, o))
		return -1;
	return model_samples_flush(b, c);
}

static int build_proc(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	if (build_space(b, c))
		return -1;
	for (size_t i = 0; i < c->p->nthreads; i++)
		if (!model_thread_of_life(b, c, i))
			return -1;
	if (o->data_object && model_dataclock_select(b, c, o))
		return -1;
	if (build_samples(b, c, o) || model_build_sync(b, c, o) || model_build_blame(b, c, o) ||
	    model_build_critical(b, c, o) ||
	    model_build_io(b, c, o) ||
	    model_heap_replay(b, c, o) || model_build_mpi(b, c, o) || model_build_states(b, c, o) ||
	    model_build_counters(b, c, o) || model_build_dataspace(b, c, o) ||
	    model_build_dataclock(b, c, o))
		return -1;
	return model_build_arcs(b, c, o);
}

/* Does `p` of `x` answer to `which`: its pid, its lineage (`founder`,
 * `_f1_x1`), its program's name, its label as views print it (`[name pid]`,
 * `[name pid rank N]`), or `launcher` for a job's launcher? */
static bool proc_matches(const struct exp_experiment *x, const struct exp_proc *p,
			 const char *which)
{
	char pid[16], label[300], ranked[320];

	snprintf(pid, sizeof(pid), "%u", p->pid);
	snprintf(label, sizeof(label), "[%s %u]", p->name, p->pid);
	snprintf(ranked, sizeof(ranked), "[%s %u rank %d]", p->name, p->pid, (int)x->rank);
	return !strcmp(which, pid) || !strcmp(which, p->lineage) || !strcmp(which, p->name) ||
	       !strcmp(which, label) || (x->rank >= 0 && !strcmp(which, ranked)) ||
	       (!p->lineage[0] && !strcmp(which, "founder")) ||
	       (x->launcher && !strcmp(which, "launcher"));
}

int model_build_begin(struct model *m, const struct model_options *o, char *err, size_t errlen)
{
	struct build *b = calloc(1, sizeof(*b));

	memset(m, 0, sizeof(*m));
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	m->priv = b;
	b->m = m;
	m->merged = o->merge_procs;
	b->match = o->match_messages || o->keep_events;
	b->keep_pairs = o->keep_events;
	m->match.raw_clocks = o->raw_clocks;
	b->inline_frames = !o->no_inline;
	model_func_add(b, "<Total>", "", 0, 0, MODEL_FUNC_ARTIFICIAL, NULL);
	b->unknown = model_func_by_name(b, "<Unknown>", "", MODEL_FUNC_ARTIFICIAL);
	b->truncated = model_func_by_name(b, "<Truncated-stack>", "", MODEL_FUNC_ARTIFICIAL);
	if (b->oom) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* Add process p of experiment x. */
static int add_proc(struct build *b, const struct exp_experiment *x, const struct exp_proc *p,
		    const struct model_options *o)
{
	struct model *m = b->m;
	struct proc_ctx c = { .p = p, .index = (uint32_t)m->nprocs, .base_ns = x->procs[0].start_ns };

	if (exp_grow(&m->procs, &b->cap_procs, m->nprocs, sizeof(*m->procs)))
		return -1;
	struct model_proc *mp = &m->procs[m->nprocs++];
	memset(mp, 0, sizeof(*mp));
	mp->src = p;
	mp->exp = x;
	mp->rank = x->rank;
	if (x->rank >= 0 && x->nprocs && !o->raw_clocks)
		model_clock_read(&mp->clock, &x->procs[0]);
	if (x->rank >= 0)
		snprintf(mp->label, sizeof(mp->label), "[%s %u rank %d]", p->name, p->pid, x->rank);
	else
		snprintf(mp->label, sizeof(mp->label), "[%s %u]", p->name, p->pid);
	int rc = build_proc(b, &c, o);
	sym_space_free(c.space);
	free(c.epochs);
	model_map_free(&c.entry_of);
	model_map_free(&c.thread_of);
	model_map_free(&c.frame_of);
	model_map_free(&c.data_keep);
	free(c.memo);
	free(c.frames);
	free(c.inl);
	model_omp_free(&c);
	model_java_free(&c);
	return rc;
}

int model_build_add(struct model *m, const struct exp_experiment *x, const struct model_options *o,
		    char *err, size_t errlen)
{
	struct build *b = m->priv;
	const struct exp_proc **added = calloc(x->nprocs + 1, sizeof(*added));
	size_t nadded = 0;

	if (!added) {
		snprintf(err, errlen, "%s: out of memory", x->path);
		return -1;
	}
	for (size_t j = 0; j < x->nprocs; j++) {
		const struct exp_proc *p = &x->procs[j];
		bool named = o->process && proc_matches(x, p, o->process);
		if (o->process && !named)
			continue;
		if (o->ranks_only && x->rank < 0 && !named) {
			m->left_out++;
			continue;
		}
		added[nadded++] = p;
	}
	/* the critical path crosses the processes added, from the first */
	int rc = model_critical_plan(b, added, nadded);
	for (size_t j = 0; !rc && j < nadded; j++)
		rc = add_proc(b, x, added[j], o) || b->oom ? -1 : 0;
	if (rc)
		snprintf(err, errlen, "%s: out of memory", x->path);
	model_critical_plan_free(b);
	free(added);
	return rc;
}

void model_build_end(struct model *m)
{
	struct build *b = m->priv;

	if (!b)
		return;
	/* Stacks that carry no value (OpenMP workers' raw stacks, counted in
	 * their placed entries; stacks noted for placing only) are not shown. */
	for (size_t i = 0; i < m->nentries; i++) {
		struct model_entry *e = &m->entries[i];
		bool any = e->nslots > 0;          /* a slot's value is never 0 */
		for (int k = 0; e->all && k < MODEL_METRIC_COUNT && !any; k++)
			any = e->all[k] != 0;
		if (!any)
			e->n = 0;
	}
	model_arcs_sort(m);
	model_mpi_sort(m);
	model_mpi_match(b);
	model_names_distinguish(m);      /* out of memory: names stay as they are */
	model_func_qualify(m);
	model_map_free(&b->arc_of);
	model_map_free(&b->file_of);
	model_map_free(&b->func_by_sym);
	model_map_free(&b->func_by_name);
	model_map_free(&b->entry_by_content);
	model_map_free(&b->msg_of);
	model_map_free(&b->state_stack_of);
	model_map_free(&b->data_object_of);
	model_map_free(&b->data_access_of);
	model_map_free(&b->data_type_of);
	model_map_free(&b->data_member_of);
	model_map_free(&b->sync_object_of);
	model_map_free(&b->sync_waiter_of);
	model_map_free(&b->blame_of);
	model_critical_plan_free(b);
	model_omp_tail_free(b);
	model_map_free(&b->inl_of);
	free(b->inl_at);
	free(b->inl_funcs);
	free(b->acc);
	free(b->touched);
	free(b);
	m->priv = NULL;
}

int model_build(struct model *m, const struct exp_experiment *exps, size_t nexps,
		const struct model_options *o, char *err, size_t errlen)
{
	if (model_build_begin(m, o, err, errlen))
		return -1;
	for (size_t i = 0; i < nexps; i++)
		if (model_build_add(m, &exps[i], o, err, errlen))
			return -1;
	model_build_end(m);
	return 0;
}

void model_free(struct model *m)
{
	model_build_end(m);
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		free(m->funcs[i].name);
		free(m->funcs[i].object);
		free(m->funcs[i].path);
		free(m->funcs[i].aliases);
		free(m->funcs[i].link);
		free(m->funcs[i].src);
	}
	model_pool_free(m);
	for (size_t i = 0; i < m->nfiles; i++)
		free(m->files[i].name);
	free(m->files);
	free(m->funcs);
	free(m->entries);
	free(m->arcs);
	free(m->msgs);
	free(m->match.pairs);
	free(m->state_stacks);
	for (size_t i = 0; i < m->ndata_objects; i++) {
		free(m->data_objects[i].name);
		free(m->data_objects[i].object);
	}
	free(m->data_objects);
	for (size_t i = 0; i < m->ndata_types; i++) {
		for (uint32_t k = 0; k < m->data_types[i].nfields; k++)
			free(m->data_types[i].fields[k].name);
		free(m->data_types[i].fields);
		free(m->data_types[i].name);
	}
	free(m->data_types);
	free(m->data_members);
	free(m->sync_objects);
	free(m->blames);
	free(m->crit);
	free(m->crit_segs);
	free(m->data_access);
	free(m->procs);
	free(m->threads);
	free(m->events);
	memset(m, 0, sizeof(*m));
}
