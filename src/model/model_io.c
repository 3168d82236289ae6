/* SPDX-License-Identifier: MIT
 *
 * model_io.c — I/O events: io.time, io.count and io.bytes by call stack, and
 * the same by file (model.files), a descriptor named by the last FD_NAME
 * record for it at or before the call.  Called once per process by
 * model_build.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_build_int.h"

/* The model_file of `name`, created on first use. */
static struct model_file *file_named(struct build *b, const char *name)
{
	struct model *m = b->m;
	uint64_t key = model_hash_str(0, name) | 1;

	for (;;) {
		uint64_t *v = model_map_get(&b->file_of, key);
		if (!v)
			break;
		if (!strcmp(m->files[*v - 1].name, name))
			return &m->files[*v - 1];
		key = model_hash64(key) | 1;
	}
	if (exp_grow(&m->files, &b->cap_files, m->nfiles, sizeof(*m->files)))
		return NULL;
	struct model_file *f = &m->files[m->nfiles];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	if (!f->name || !model_map_put(&b->file_of, key, m->nfiles + 1, NULL)) {
		free(f->name);
		return NULL;
	}
	m->nfiles++;
	return f;
}

int model_io_cmp_fd_ev(const void *a, const void *b)
{
	const struct exp_fd_ev *x = a, *y = b;

	if (x->fd != y->fd)
		return x->fd < y->fd ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

const char *model_io_fd_name_at(const struct exp_fd_ev *fds, size_t n, int32_t fd, uint64_t time,
			      char *buf, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {                 /* first entry after (fd, time) */
		size_t mid = (lo + hi) / 2;
		if (fds[mid].fd < fd || (fds[mid].fd == fd && fds[mid].time_ns <= time))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && fds[lo - 1].fd == fd)
		return fds[lo - 1].name;
	snprintf(buf, len, "fd %d", fd);
	return buf;
}

/* One I/O call into its file and its entry. */
static int add_io(struct build *b, struct proc_ctx *c, const struct model_options *o,
		  const struct exp_io *s, const struct exp_fd_ev *fds, size_t nfds)
{
	char buf[32];
	struct model_file *f = file_named(b, model_io_fd_name_at(fds, nfds, s->fd, s->time_ns, buf, sizeof(buf)));
	bool moves = s->op == EXP_IO_READ || s->op == EXP_IO_WRITE;
	/* A record may stand for a run of calls, or for bytes riding on the
	 * call before it (EXP_IO_SAME_CALL: no call of its own). */
	uint64_t calls = (s->flags & EXP_IO_SAME_CALL) ? 0 : s->calls ? s->calls : 1;

	if (!f)
		return -1;
	f->ops[s->op < 8 ? s->op : 0] += calls;
	f->v[MODEL_IO_TIME] += s->dur_ns;
	if (moves) {
		f->v[MODEL_IO_COUNT] += calls;
		if (s->bytes > 0)
			f->v[MODEL_IO_BYTES] += (uint64_t)s->bytes;
	}
	if (model_add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_IO_TIME, s->dur_ns, NULL))
		return -1;
	if (moves && ((calls && model_add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_IO_COUNT,
					   calls, NULL)) ||
		      (s->bytes > 0 && model_add(b, c, o, s->tid, s->time_ns, s->stack_id,
						 MODEL_IO_BYTES, (uint64_t)s->bytes, NULL))))
		return -1;
	return 0;
}

int model_build_io(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;
	struct exp_fd_ev *fds = p->nfds ? malloc(p->nfds * sizeof(*fds)) : NULL;
	int rc = 0;

	if (p->nfds && !fds)
		return -1;
	if (fds) {
		memcpy(fds, p->fds, p->nfds * sizeof(*fds));
		qsort(fds, p->nfds, sizeof(*fds), model_io_cmp_fd_ev);
	}
	for (size_t i = 0; i < p->nio && !rc; i++)
		if (model_keep(c, o, p->io[i].tid, p->io[i].time_ns))
			rc = add_io(b, c, o, &p->io[i], fds, fds ? p->nfds : 0);
	free(fds);
	return rc;
}
