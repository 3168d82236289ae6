/* SPDX-License-Identifier: MIT
 *
 * model_structure.c — program structure the way the Sun Performance Analyzer maps it (ch. 5,
 * "Outline Functions", "Parallel Execution Sequence"): which functions are
 * parts split off another function, OpenMP bodies or the OpenMP runtime, and
 * the rewriting of one stack in the user view (model_build_int.h lists the
 * neighbours; docs/structure.md states every rule).
 *
 *  - An outlined part (gcc's `f.cold`, `f.part.N`) is jumped to or called
 *    from its parent f: an imputed call f -> part is inserted wherever the
 *    part's caller is not f, so the part's time reaches f's inclusive metric.
 *  - An OpenMP body (`f._omp_fn.N`, clang's `.omp_outlined.`) is called by
 *    the runtime: the runtime frames between the function that opened the
 *    parallel region and its body are dropped (an imputed call f -> body);
 *    runtime frames at the end of a stack (the thread waits or works in the
 *    runtime) become one artificial function, <OMP-barrier>, <OMP-lock> or
 *    <OMP-overhead>, named by the runtime's entry point the stack went
 *    through.  A worker thread's stack starts in the runtime: it is marked to
 *    be placed by time under its region's caller (model_omp.c).
 * Called by model_frames.c once per new entry; pure functions of the
 * function table.
 */
#include <string.h>

#include "model/model_build_int.h"

/* ---- classifying a function by its names -------------------------------- */

bool model_omp_runtime_object(const char *object)
{
	return !strncmp(object, "libgomp", 7) || !strncmp(object, "libomp", 6) ||
	       !strncmp(object, "libiomp", 7);
}

/* Start of the last `.cold` or `.part.N` marker of a link name, or NULL. */
static const char *outline_marker(const char *link)
{
	const char *found = NULL;

	for (const char *p = strchr(link, '.'); p; p = strchr(p + 1, '.')) {
		if ((!strncmp(p, ".cold", 5) && (p[5] == 0 || p[5] == '.')) ||
		    (!strncmp(p, ".part.", 6) && p[6] >= '0' && p[6] <= '9'))
			found = p;
	}
	return found;
}

uint32_t model_struct_kind(const char *link, size_t *parent_len)
{
	const char *p;

	*parent_len = 0;
	if (!link)
		return 0;
	if ((p = strstr(link, "._omp_fn.")) || (p = strstr(link, "._omp_cpyfn."))) {
		*parent_len = (size_t)(p - link);
		return MODEL_FUNC_OMP_BODY;
	}
	if ((p = strstr(link, ".omp_outlined")) || (p = strstr(link, "__omp_outlined__")) ||
	    (p = strstr(link, ".omp_task_entry."))) {
		*parent_len = (size_t)(p - link);
		return MODEL_FUNC_OMP_BODY;
	}
	if ((p = outline_marker(link)) && p > link) {
		*parent_len = (size_t)(p - link);
		return MODEL_FUNC_OUTLINED;
	}
	return 0;
}

/* ---- the pseudo-function of a stack that ends in the runtime ------------- */

/* Runtime entry points whose callers wait at a barrier (or for tasks at
 * one), and those whose callers wait for a lock.  Matched as prefixes of the
 * function's name, except names ending in _nowait, which do not wait. */
static const char *const barrier_entries[] = {
	"GOMP_barrier", "GOMP_loop_end", "GOMP_sections_end", "GOMP_parallel_end",
	"GOMP_taskwait", "GOMP_taskgroup_end", "GOMP_single_copy_start",
	"__kmpc_barrier", "__kmpc_cancel_barrier", "__kmpc_omp_taskwait",
	"__kmpc_end_taskgroup", "__kmp_join_call", "__kmpc_reduce",
};
static const char *const lock_entries[] = {
	"GOMP_critical_start", "GOMP_critical_name_start", "GOMP_atomic_start",
	"GOMP_ordered_start", "omp_set_lock", "omp_set_nest_lock", "__kmpc_critical",
	"__kmpc_set_lock", "__kmpc_set_nest_lock", "__kmpc_ordered", "__kmpc_atomic",
};

static bool has_prefix_in(const char *name, const char *const *list, size_t n)
{
	size_t len = strlen(name);

	if (len > 7 && !strcmp(name + len - 7, "_nowait"))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strncmp(name, list[i], strlen(list[i])))
			return true;
	return false;
}

/* The <OMP-*> function for runtime frames funcs[s..n): decided by the
 * innermost frame named as a waiting entry point, else overhead. */
static uint32_t span_pseudo(const struct build *b, const uint32_t *funcs, uint32_t s, uint32_t n)
{
	for (uint32_t i = n; i-- > s;) {
		const char *name = b->m->funcs[funcs[i]].name;
		if (has_prefix_in(name, barrier_entries, sizeof(barrier_entries) / sizeof(*barrier_entries)))
			return b->omp_fn[MODEL_OMP_FN_BARRIER];
		if (has_prefix_in(name, lock_entries, sizeof(lock_entries) / sizeof(*lock_entries)))
			return b->omp_fn[MODEL_OMP_FN_LOCK];
	}
	return b->omp_fn[MODEL_OMP_FN_OVERHEAD];
}

/* ---- rewriting a stack --------------------------------------------------- */

static uint32_t flags_of(const struct build *b, uint32_t f)
{
	return b->m->funcs[f].flags;
}

uint32_t model_struct_omp(const struct build *b, uint32_t *funcs, uint64_t *addrs, uint32_t *n,
			  uint32_t first)
{
	uint32_t in = first, out = first, kind = MODEL_OMP_NONE;
	bool any = false;

	for (uint32_t i = first; i < *n && !any; i++)
		any = (flags_of(b, funcs[i]) & MODEL_FUNC_OMP_RUNTIME) != 0;
	if (!any)
		return MODEL_OMP_NONE;
	if (*n > first && (flags_of(b, funcs[first]) & MODEL_FUNC_OMP_RUNTIME)) {
		/* A worker: its stack starts in the runtime; what precedes its
		 * first body is placed by time (model_omp.c). */
		kind = MODEL_OMP_WORKER;
		while (in < *n && !(flags_of(b, funcs[in]) & MODEL_FUNC_OMP_BODY))
			in++;
		if (in == *n) {
			/* Only the runtime: a named wait (GOMP_barrier tail-called
			 * by a body) says what it is; else the time will tell. */
			uint32_t pseudo = span_pseudo(b, funcs, first, *n);
			*n = first;
			if (pseudo != b->omp_fn[MODEL_OMP_FN_OVERHEAD]) {
				funcs[first] = pseudo;
				addrs[first] = 0;
				*n = first + 1;
			}
			return kind;
		}
	}
	while (in < *n) {
		uint32_t f = funcs[in];
		if (!(flags_of(b, f) & MODEL_FUNC_OMP_RUNTIME)) {
			if ((flags_of(b, f) & MODEL_FUNC_OMP_BODY) && kind == MODEL_OMP_NONE)
				kind = MODEL_OMP_IN_REGION;
			funcs[out] = f;
			addrs[out++] = addrs[in++];
			continue;
		}
		uint32_t end = in;
		while (end < *n && !(flags_of(b, funcs[end]) & MODEL_FUNC_OMP_BODY))
			end++;
		if (end == *n) {            /* the stack ends in the runtime */
			funcs[out] = span_pseudo(b, funcs, in, end);
			addrs[out++] = 0;
			if (kind == MODEL_OMP_NONE)
				kind = MODEL_OMP_IN_REGION;
		}
		in = end;                   /* else: an imputed call to the body */
	}
	*n = out;
	return kind;
}

/* Is f the parent p inlined (model_frames.c's "NAME (inlined)")?  A
 * partial inline: the caller holds p's head, which calls p's part. */
static bool inlined_copy(const struct model *m, uint32_t f, uint32_t p)
{
	const char *a = m->funcs[f].name, *b = m->funcs[p].name;
	size_t n = strlen(b);

	return (m->funcs[f].flags & MODEL_FUNC_INLINED) && !strncmp(a, b, n) && !strcmp(a + n, " (inlined)");
}

uint32_t model_struct_impute(const struct build *b, uint32_t *funcs, uint64_t *addrs, uint32_t n,
			     uint32_t from, uint32_t cap)
{
	for (uint32_t i = from; i < n && n < cap; i++) {
		uint32_t p = b->m->funcs[funcs[i]].parent;
		/* none when the caller is the parent, or another part of it
		 * (a part calling itself, a .part calling its .cold), or the
		 * parent inlined into the caller */
		if (!p || (i > 0 && (funcs[i - 1] == p || b->m->funcs[funcs[i - 1]].parent == p ||
				     inlined_copy(b->m, funcs[i - 1], p))))
			continue;
		memmove(&funcs[i + 1], &funcs[i], (n - i) * sizeof(*funcs));
		memmove(&addrs[i + 1], &addrs[i], (n - i) * sizeof(*addrs));
		funcs[i] = p;
		addrs[i] = 0;
		n++;
		i--;                         /* the parent may have one (wraps to 0 by i++) */
	}
	return n;
}
