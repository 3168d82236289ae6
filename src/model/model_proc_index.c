/* SPDX-License-Identifier: MIT
 *
 * model_proc_index.c — one experiment's processes sorted three ways, once
 * per critical path (model_critical_plan), for the steps that used to
 * scan them all: a wait for a child goes to the image that it reaped (by
 * pid and parent, the latest started before the grant), system()'s wait to
 * the child that started within it (by parent and start), a main thread
 * back to the image before its exec or its parent at the fork (by
 * lineage).  A shell loop of 2,000 commands makes 4,000 images and 2,000
 * such waits: a scan per step was 10^7 comparisons of processes (and of
 * their lineage strings); a binary search is about 12 each.
 *
 * `probes` counts the processes the lookups looked at, so a test can check
 * the work grows as N log N (tests/unit/test_model.c), not by a clock.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_data.h"
#include "model/model_proc_index.h"

static int cmp_u(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_pid(const void *a, const void *b, void *arg)
{
	const struct exp_proc *const *p = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int c;

	if ((c = cmp_u(p[i]->pid, p[j]->pid)) || (c = cmp_u(p[i]->ppid, p[j]->ppid)) ||
	    (c = cmp_u(p[i]->start_ns, p[j]->start_ns)))
		return c;
	return cmp_u(i, j);
}

static int cmp_parent(const void *a, const void *b, void *arg)
{
	const struct exp_proc *const *p = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int c;

	if ((c = cmp_u(p[i]->ppid, p[j]->ppid)) || (c = cmp_u(p[i]->start_ns, p[j]->start_ns)))
		return c;
	return cmp_u(i, j);
}

static const char *lineage_of(const struct exp_proc *p)
{
	return p->lineage ? p->lineage : "";
}

static int cmp_lineage(const void *a, const void *b, void *arg)
{
	const struct exp_proc *const *p = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int c = strcmp(lineage_of(p[i]), lineage_of(p[j]));

	return c ? c : cmp_u(i, j);
}

static uint32_t *sorted(const struct exp_proc *const *procs, size_t n,
			int (*cmp)(const void *, const void *, void *))
{
	uint32_t *v = malloc((n ? n : 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	qsort_r(v, n, sizeof(*v), cmp, (void *)procs);
	return v;
}

int model_proc_index_build(struct model_proc_index *x, const struct exp_proc *const *procs, size_t n)
{
	*x = (struct model_proc_index){ .procs = procs, .n = n };
	if (!(x->by_pid = sorted(procs, n, cmp_pid)) || !(x->by_parent = sorted(procs, n, cmp_parent)) ||
	    !(x->by_lineage = sorted(procs, n, cmp_lineage))) {
		model_proc_index_free(x);
		return -1;
	}
	return 0;
}

void model_proc_index_free(struct model_proc_index *x)
{
	free(x->by_pid);
	free(x->by_parent);
	free(x->by_lineage);
	x->by_pid = x->by_parent = x->by_lineage = NULL;
}

size_t model_proc_image_at(struct model_proc_index *x, uint32_t pid, uint32_t ppid, uint64_t t)
{
	size_t lo = 0, hi = x->n;      /* the first after (pid, ppid, t) */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct exp_proc *p = x->procs[x->by_pid[mid]];
		x->probes++;
		if (p->pid < pid || (p->pid == pid && (p->ppid < ppid || (p->ppid == ppid && p->start_ns <= t))))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return x->n;
	const struct exp_proc *p = x->procs[x->by_pid[lo - 1]];
	return p->pid == pid && p->ppid == ppid ? x->by_pid[lo - 1] : x->n;
}

/* One part of a lineage, "_" + kind + digits: past it, or NULL if not. */
static const char *lineage_part(const char *l, char kind)
{
	if (l[0] != '_' || l[1] != kind || l[2] < '0' || l[2] > '9')
		return NULL;
	for (l += 2; *l >= '0' && *l <= '9'; l++)
		;
	return l;
}

bool model_lineage_after(const char *lineage, const char *parent, bool forked)
{
	const char *pl = parent ? parent : "", *l = lineage ? lineage : "";
	size_t len = strlen(pl);

	if (strncmp(l, pl, len))
		return false;
	l += len;
	if (forked && !(l = lineage_part(l, 'f')))
		return false;
	while (*l)
		if (!(l = lineage_part(l, 'x')))
			return false;
	return true;
}

/* Is p a child forked by image `parent`: its lineage the parent's, then
 * "_fN", then its own execs only ("_xN"; "_f_x" or a trailing "_" is
 * none: before, this parser accepted them, the root chain's did not)? */
static bool forked_by(const struct exp_proc *p, const struct exp_proc *parent)
{
	return p->lineage && model_lineage_after(p->lineage, parent->lineage, true);
}

size_t model_proc_first_child(struct model_proc_index *x, const struct exp_proc *parent, uint32_t tid,
			      uint64_t from, uint64_t to)
{
	uint32_t ppid = parent->pid;
	size_t lo = 0, hi = x->n;      /* the first at or after (ppid, from) */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct exp_proc *p = x->procs[x->by_parent[mid]];
		x->probes++;
		if (p->ppid < ppid || (p->ppid == ppid && p->start_ns < from))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < x->n; lo++) {
		const struct exp_proc *p = x->procs[x->by_parent[lo]];
		x->probes++;
		if (p->ppid != ppid || p->start_ns > to)
			break;
		if (p->pid != ppid && forked_by(p, parent) && (!tid || !p->fork_tid || p->fork_tid == tid))
			return x->by_parent[lo];
	}
	return x->n;
}

/* strcmp of a's lineage against the len bytes at l. */
static int cmp_prefix(const char *a, const char *l, size_t len)
{
	int c = strncmp(a, l, len);

	return c ? c : a[len] ? 1 : 0;   /* a longer than l: after it */
}

size_t model_proc_by_lineage(struct model_proc_index *x, const char *lineage, size_t len)
{
	size_t lo = 0, hi = x->n;      /* the first not before lineage */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		x->probes++;
		if (cmp_prefix(lineage_of(x->procs[x->by_lineage[mid]]), lineage, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n && !cmp_prefix(lineage_of(x->procs[x->by_lineage[lo]]), lineage, len) ? x->by_lineage[lo]
												      : x->n;
}
