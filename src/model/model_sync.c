/* SPDX-License-Identifier: MIT
 *
 * model_sync.c — synchronization waits (`tally record -s`, the Sun analyzer's
 * synchronization tracing): every wait on a shared thread-library object is
 * sync.wait and sync.count at its stack, whatever its kind (mutex, rwlock,
 * condition variable, semaphore, barrier, a Java monitor); the waits that
 * are no lock acquisition (condition variables, barriers) are also
 * sync.other, so the lock waits alone stay sync.wait - sync.other.  A join
 * waits for a thread to end, not for a shared object: its wait is sync.join
 * and in no other metric (docs/decisions.md).
 * And by object: each (process, address, kind) waited on, with its total
 * wait, its waits, the threads that waited and the stack of its first wait
 * (the Sun analyzer's view by synchronization object; model.sync_objects).
 * Called by model_build.c once per process, after its samples.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_build_int.h"

static const char *const kind_names[] = {
	[EXP_SYNC_MUTEX] = "mutex", [EXP_SYNC_RWLOCK_RD] = "rwlock (read)",
	[EXP_SYNC_RWLOCK_WR] = "rwlock (write)", [EXP_SYNC_COND] = "condition variable",
	[EXP_SYNC_SEM] = "semaphore", [EXP_SYNC_BARRIER] = "barrier", [EXP_SYNC_JOIN] = "join",
	[EXP_SYNC_JAVA_MONITOR] = "Java monitor", [EXP_SYNC_FUTEX] = "futex",
	[EXP_SYNC_CHILD] = "child process",
};

enum model_metric model_sync_metric(unsigned op)
{
	return op == EXP_SYNC_JOIN || op == EXP_SYNC_CHILD ? MODEL_SYNC_JOIN : MODEL_SYNC_WAIT;
}

const char *model_sync_kind_name(unsigned op)
{
	return op < sizeof(kind_names) / sizeof(kind_names[0]) && kind_names[op] ? kind_names[op] : "other";
}

/* Is a wait of this kind a lock acquisition (sync.other if not)? */
static bool is_lock(unsigned op)
{
	return op == EXP_SYNC_MUTEX || op == EXP_SYNC_RWLOCK_RD || op == EXP_SYNC_RWLOCK_WR ||
	       op == EXP_SYNC_SEM || op == EXP_SYNC_JAVA_MONITOR;
}

/* The object (process c, addr, kind op), made on first use; its index, or
 * -1 if out of memory. */
static long object_of(struct build *b, struct proc_ctx *c, uint64_t addr, unsigned op)
{
	struct model *m = b->m;
	uint64_t key = model_hash64((uint64_t)c->index << 40 ^ (uint64_t)op << 32 ^ model_hash64(addr)) | 1;

	for (;;) {
		uint64_t *v = model_map_get(&b->sync_object_of, key);
		if (!v)
			break;
		const struct model_sync_object *s = &m->sync_objects[*v - 1];
		if (s->proc == c->index && s->addr == addr && s->kind == op)
			return (long)*v - 1;
		key = model_hash64(key) | 1;
	}
	if (exp_grow(&m->sync_objects, &b->cap_sync_objects, m->nsync_objects, sizeof(*m->sync_objects)))
		return -1;
	struct model_sync_object *s = &m->sync_objects[m->nsync_objects];
	memset(s, 0, sizeof(*s));
	s->proc = c->index;
	s->addr = addr;
	s->kind = op;
	s->first_ns = UINT64_MAX;
	if (!model_map_put(&b->sync_object_of, key, m->nsync_objects + 1, NULL))
		return -1;
	return (long)m->nsync_objects++;
}

/* Count one wait of thread tid at entry e on object `obj`. */
static int object_add(struct build *b, long obj, uint32_t tid, const struct exp_sync *s, long e)
{
	struct model_sync_object *x = &b->m->sync_objects[obj];
	bool fresh;

	x->wait_ns += s->wait_ns;
	x->count++;
	if (s->time_ns - s->wait_ns < x->first_ns && e >= 0) {
		x->first_ns = s->time_ns - s->wait_ns;
		x->first_entry = (uint32_t)e;
	}
	if (!model_map_put(&b->sync_waiter_of, model_hash64((uint64_t)obj << 32 | tid) | 1, 1, &fresh))
		return -1;
	x->waiters += fresh;
	return 0;
}

int model_build_sync(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;

	for (size_t i = 0; i < p->nsync; i++) {
		const struct exp_sync *s = &p->sync[i];
		long e = -1;
		if (!model_keep(c, o, s->tid, s->time_ns))
			continue;
		if (model_sync_metric(s->op) == MODEL_SYNC_JOIN) {   /* a thread's or a child's */
			if (model_add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_SYNC_JOIN, s->wait_ns, &e))
				return -1;
		} else if (model_add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_SYNC_WAIT, s->wait_ns, &e) ||
			   model_add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_SYNC_COUNT, 1, NULL) ||
			   (!is_lock(s->op) &&
			    model_add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_SYNC_OTHER, s->wait_ns, NULL))) {
			return -1;
		}
		if (e >= 0 && (b->m->entries[e].flags & MODEL_ENTRY_FILTERED))
			continue;
		long obj = object_of(b, c, s->object, s->op);
		if (obj < 0 || object_add(b, obj, s->tid, s, e))
			return -1;
	}
	return 0;
}
