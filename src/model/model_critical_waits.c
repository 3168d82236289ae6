/* SPDX-License-Identifier: MIT
 *
 * model_critical_waits.c — the waits the critical path crosses
 * (model_critical.c), each with the thread that ended it and when, one
 * list for every kind, so that the walk is one rule: from a wait, go to its
 * waker at the wake-up.
 *
 *   a join          the thread that ended latest between the request and
 *                   the grant (or was in tally's end at the request: its
 *                   END to its THREAD_SCHED read aside), at its end
 *   a mutex         its holder at the grant (the newest SYNC_HELD part of
 *                   the wait), at the grant
 *   a condition     its waker (SYNC_WAKE: the thread that signalled or
 *   variable, a     posted it last within the wait, or whose arrival
 *   semaphore, a    completed the barrier's round, or whose futex wake
 *   barrier, a      woke a thread), at the signal or arrival
 *   futex word
 *   a read of a     (-i) the latest write into the channel it reads
 *   pipe, FIFO,     from (the descriptors' FD_FLOW records: rx of the
 *   socket or       reader is tx of the writer; in older experiments a
 *   eventfd         pipe's name, `pipe:[inode]`) by another thread that
 *                   overlaps the read, at the write's end (or the read's,
 *                   if sooner); a read no other thread's write overlapped
 *                   did not wait for one, and is no wait; nor did a
 *                   read that began while a write was under way (of the
 *                   two, the one that came first waited for the other:
 *                   there, the write for room in a full channel)
 *   a write into a  (-i) the latest read from the channel it writes into
 *   full pipe,      by another thread that began while the write was
 *   FIFO or socket  under way and took bytes (it made the room the write
 *                   waited for), at the read's end (or the write's, if
 *                   sooner); a write no read began within did not wait,
 *                   and is no wait
 *   a wait in poll, (-i, FD_WAIT) the same, over the channels of every
 *   select, epoll   descriptor it waited on to read (epoll: its interest
 *                   list then, from the FD_WATCH records of epoll_ctl, or
 *                   of the set's fdinfo for a set made unseen; an epoll
 *                   set in it, nested, by its own list, 4 deep at most);
 *                   one poll or epoll waited on to write alone (POLLOUT,
 *                   EPOLLOUT), as a write into a full channel: the latest
 *                   read from its channel by another thread that began
 *                   within the wait;
 *                   one no write overlapped (a timeout, a signal, a
 *                   descriptor of a process not recorded) is a wait of
 *                   no known cause
 *   a wait for a    (-s, EXP_SYNC_CHILD) the child it reaped: that pid's
 *   child process   image (its latest exec) at its end; system()'s, the
 *                   child that started within it
 *   a process-      (-s, SYNC_KEY) the thread of any process that released
 *   shared mutex    it last within the wait (an unlock with waiters, a
 *   or futex word   futex wake that woke one), at the release: the object
 *                   named by its mapping's file and offset in every process
 *
 * Channels are the kernel's (an inode, a socket's address or file), the
 * same in every process: a read's writer, a write's reader and a poll's
 * waker are looked for in every process of the experiment, so the path
 * crosses from a process to another through a pipe, a socket or a FIFO.
 * Thread ids are the system's, unique among live threads (an image after
 * an exec keeps its thread's: the same thread).
 *
 * What is not known (a first contention, a wake-up by no other thread)
 * has no waker: the walk keeps the wait on the waiter.  A process-shared
 * object's wait without one (EXP_SYNC_F_SHARED: no release of its key
 * within it, nor a holder or waker of its own process) is of its own kind,
 * as its holder or waker may be another process.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_build_int.h"

static uint64_t wait_key(uint32_t tid, uint64_t time_ns, uint64_t object)
{
	return model_hash64(model_hash64((uint64_t)tid << 32 ^ time_ns) ^ object) | 1;
}

static int cmp_wait(const void *a, const void *b)
{
	const struct crit_wait *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

struct waits {
	struct crit_wait *v;
	size_t n, cap;
};

static struct crit_wait *wait_new(struct waits *w)
{
	if (exp_grow(&w->v, &w->cap, w->n, sizeof(*w->v)))
		return NULL;
	memset(&w->v[w->n], 0, sizeof(w->v[w->n]));
	return &w->v[w->n++];
}

/* A process's ended lives by end_ns, for ended_in's binary search: built
 * once per process at its first JOIN (a scan per JOIN was quadratic in
 * threads: 60% of a 16,000-thread report). */
struct life_end {
	uint64_t end_ns;
	uint32_t life;             /* index into p->threads */
};

struct ends {
	struct life_end *by_end;   /* sorted by end_ns */
	size_t n;
	uint64_t tally_max_ns;     /* the longest tally's end read aside (SCHED after END) */
	bool built;
};

/* Until when a life was still in tally's end: its THREAD_SCHED's time when
 * that came after its END (the schedstat read aside), else its END. */
static uint64_t tally_end_of(const struct exp_thread_ev *t)
{
	return t->has_sched && t->sched_ns > t->end_ns ? t->sched_ns : t->end_ns;
}

static int cmp_end(const void *a, const void *b)
{
	const struct life_end *x = a, *y = b;

	if (x->end_ns != y->end_ns)
		return x->end_ns < y->end_ns ? -1 : 1;
	return x->life < y->life ? -1 : x->life > y->life;
}

/* e filled from p's lives if not yet.  -1 without memory. */
static int ends_build(struct ends *e, const struct exp_proc *p)
{
	if (e->built)
		return 0;
	e->by_end = malloc((p->nthreads + 1) * sizeof(*e->by_end));
	if (!e->by_end)
		return -1;
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct exp_thread_ev *t = &p->threads[i];
		if (!t->end_ns)
			continue;
		e->by_end[e->n++] = (struct life_end){ t->end_ns, (uint32_t)i };
		if (tally_end_of(t) - t->end_ns > e->tally_max_ns)
			e->tally_max_ns = tally_end_of(t) - t->end_ns;
	}
	qsort(e->by_end, e->n, sizeof(*e->by_end), cmp_end);
	e->built = true;
	return 0;
}

/* The thread other than tid that ended latest by `to` and was still ending
 * (its END to tally_end_of) at `from` or later; NULL if none.  A join begun
 * in tally's end of the thread it joins waits for tally only: that thread
 * is its waker, from its END (join_wake gives the rest to tally).  O(log
 * lives) plus the lives that ended within tally_max_ns of `from`. */
static const struct exp_thread_ev *ended_in(const struct exp_proc *p, const struct ends *e, uint32_t tid,
					    uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = e->n;

	while (lo < hi) {             /* the first that ended after `to` */
		size_t mid = lo + (hi - lo) / 2;
		if (e->by_end[mid].end_ns <= to)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t floor = from > e->tally_max_ns ? from - e->tally_max_ns : 0;
	for (size_t k = lo; k-- > 0;) {
		const struct exp_thread_ev *t = &p->threads[e->by_end[k].life];
		if (t->end_ns < floor)
			break;
		if (t->tid != tid && tally_end_of(t) >= from)
			return t;
	}
	return NULL;
}

uint64_t model_proc_end(const struct exp_proc *p)
{
	uint64_t end = p->end_ns;

	for (size_t i = 0; !p->end_ns && i < p->nthreads; i++)
		if (p->threads[i].end_ns > end)
			end = p->threads[i].end_ns;
	for (size_t i = 0; !p->end_ns && i < p->nsamples; i++)
		if (p->samples[i].time_ns > end)
			end = p->samples[i].time_ns;
	for (size_t i = 0; !p->end_ns && i < p->nio; i++)
		if (p->io[i].time_ns + p->io[i].dur_ns > end)
			end = p->io[i].time_ns + p->io[i].dur_ns;
	return end;
}

/* A wait for a child process: its waker is the reaped image's main thread
 * (the first thread of no creator) at the image's end (model_proc_end),
 * within the wait: from there to the grant, the parent waited.  A child
 * whose last record came before the wait began (it was ending, or done, as
 * the parent asked) is no waker: the path stays on the parent, which ran
 * then.  Put at the wait's request, as before, the child's stretch ran
 * past its last record to the request, and that time, when the child did
 * nothing recorded, went to its last samples' functions (29 ms of a
 * forkpipe child at load 22, over its own span).  For
 * system()'s wait (EXP_SYNC_F_SYSTEM) the pid is not recorded: its child
 * is the first of p's children (by ppid, not p's own pid, forked by this
 * image and not by another of its threads) that started within the wait.  Both are found in the index, not by a scan: the image
 * reaped is that pid's, of parent p, that started last before the grant
 * (an exec makes a new image of the pid). */
static void child_waker(const struct exp_proc *const *procs, size_t n, struct model_proc_index *ix,
			const struct exp_proc *p, const struct exp_sync *s, struct crit_wait *x)
{
	size_t sys = s->object || !(s->flags & EXP_SYNC_F_SYSTEM) ? n
		   : model_proc_first_child(ix, p, s->tid, x->req_ns, x->time_ns);
	uint64_t pid = s->object ? s->object : sys < n ? procs[sys]->pid : 0;
	size_t j = pid && pid <= UINT32_MAX ? model_proc_image_at(ix, (uint32_t)pid, p->pid, s->time_ns) : n;
	const struct exp_thread_ev *main = NULL;

	for (size_t i = 0; j < n && i < procs[j]->nthreads && !main; i++)
		if (!procs[j]->threads[i].creator_tid && !procs[j]->threads[i].start_routine)
			main = &procs[j]->threads[i];
	if (!main)
		return;
	uint64_t end = model_proc_end(procs[j]);
	if (end && end < x->req_ns) {
		/* Its last record came before the wait: not known to have
		 * waited for it.  With its end recorded, it had ended: said so
		 * (rev-report 7: "not recorded" was false); without (_exit,
		 * killed), it may have run on unrecorded: of no known cause. */
		if (procs[j]->end_ns)
			x->kind = MODEL_CRIT_CHILD_DONE;
		return;
	}
	x->waker_tid = main->tid;
	x->waker_proc = (uint32_t)j;
	x->wake_ns = !end || end > s->time_ns ? s->time_ns : end;
}

/* A release of a process-shared object (SYNC_KEY, role RELEASE): its key
 * (shared_key), when, by whom. */
struct release {
	uint64_t key;
	uint64_t time_ns;
	uint32_t tid;
	uint32_t proc;
};

static uint64_t shared_key(const struct exp_sync_key *k)
{
	return model_hash64(model_hash64(model_hash64(k->dev) ^ k->ino) ^ k->offset) | 1;
}

static int cmp_release(const void *a, const void *b)
{
	const struct release *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* Every process's releases of shared objects, sorted by (key, time). */
struct releases {
	struct release *v;
	size_t n;
};

static int all_releases(const struct exp_proc *const *procs, size_t nprocs, struct releases *r)
{
	size_t n = 0;

	for (size_t j = 0; j < nprocs; j++)
		n += procs[j]->nkeys;
	r->n = 0;
	if (!n)
		return 0;
	if (!(r->v = malloc(n * sizeof(*r->v))))
		return -1;
	for (size_t j = 0; j < nprocs; j++)
		for (size_t i = 0; i < procs[j]->nkeys; i++) {
			const struct exp_sync_key *k = &procs[j]->keys[i];
			if (k->role == EXP_SYNC_KEY_RELEASE)
				r->v[r->n++] = (struct release){ shared_key(k), k->time_ns, k->tid, (uint32_t)j };
		}
	qsort(r->v, r->n, sizeof(*r->v), cmp_release);
	return 0;
}

/* The latest release of `key` within [from, to] by a thread other than
 * (proc, tid); NULL if none. */
static const struct release *released_in(const struct releases *r, uint64_t key, uint32_t proc, uint32_t tid,
					 uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = r->n;      /* the first after (key, to) */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->v[mid].key < key || (r->v[mid].key == key && r->v[mid].time_ns <= to))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k > 0 && r->v[k - 1].key == key && r->v[k - 1].time_ns >= from; k--)
		if (r->v[k - 1].proc != proc || r->v[k - 1].tid != tid)
			return &r->v[k - 1];
	return NULL;
}

/* A wait on a process-shared object with its key (SYNC_KEY, role WAIT, in
 * `keys`): its waker is the thread, of any process, that released the
 * object last within the wait (an unlock with waiters, a futex wake), at
 * the release.  true if found. */
static bool shared_waker(const struct exp_proc *p, uint32_t j, const struct model_map *keys,
			 const struct releases *r, uint64_t key, const struct exp_sync *s, struct crit_wait *x)
{
	uint64_t *v = model_map_get(keys, key);
	const struct exp_sync_key *k = v ? &p->keys[*v - 1] : NULL;

	if (!k || k->tid != s->tid || k->time_ns != s->time_ns || k->object != s->object)
		return false;
	const struct release *by = released_in(r, shared_key(k), j, s->tid, x->req_ns, s->time_ns);
	if (!by)
		return false;
	x->waker_tid = by->tid;
	x->waker_proc = by->proc;
	x->wake_ns = by->time_ns;
	return true;
}

/* The SYNC records of procs[j], each with its waker. */
static int sync_waits(const struct exp_proc *const *procs, size_t nprocs, struct model_proc_index *ix, size_t j,
		      const struct releases *rel, struct waits *w)
{
	const struct exp_proc *p = procs[j];
	struct model_map held = { 0 }, wake = { 0 }, keys = { 0 };
	struct ends ends = { 0 };
	int rc = -1;

	for (size_t i = 0; i < p->nheld; i++) {
		const struct exp_sync_held *h = &p->held[i];
		bool fresh;    /* the first, the newest holder, is kept */
		if (!model_map_put(&held, wait_key(h->tid, h->time_ns, h->object), i + 1, &fresh))
			goto out;
	}
	for (size_t i = 0; i < p->nwakes; i++) {
		const struct exp_sync_wake *k = &p->wakes[i];
		if (!model_map_put(&wake, wait_key(k->tid, k->time_ns, k->object), i + 1, NULL))
			goto out;
	}
	for (size_t i = 0; i < p->nkeys; i++) {
		const struct exp_sync_key *k = &p->keys[i];
		if (k->role == EXP_SYNC_KEY_WAIT && !model_map_put(&keys, wait_key(k->tid, k->time_ns, k->object), i + 1, NULL))
			goto out;
	}
	for (size_t i = 0; i < p->nsync; i++) {
		const struct exp_sync *s = &p->sync[i];
		struct crit_wait *x = wait_new(w);
		if (!x)
			goto out;
		*x = (struct crit_wait){ .proc = (uint32_t)j, .tid = s->tid, .time_ns = s->time_ns,
					 .stack_id = s->stack_id, .waker_proc = (uint32_t)j,
					 .req_ns = s->time_ns - (s->wait_ns < s->time_ns ? s->wait_ns : s->time_ns),
					 .kind = s->op < MODEL_CRIT_READ ? s->op : 0 };
		uint64_t key = wait_key(s->tid, s->time_ns, s->object);
		if ((s->flags & EXP_SYNC_F_SHARED) && rel->n && shared_waker(p, (uint32_t)j, &keys, rel, key, s, x)) {
			;      /* released by a thread of any process */
		} else if (s->op == EXP_SYNC_CHILD) {
			child_waker(procs, nprocs, ix, p, s, x);
		} else if (s->op == EXP_SYNC_JOIN) {
			if (ends_build(&ends, p))
				goto out;
			const struct exp_thread_ev *t = ended_in(p, &ends, s->tid, x->req_ns, s->time_ns);
			if (t) {
				x->waker_tid = t->tid;
				x->wake_ns = t->end_ns;
			}
		} else if (s->op == EXP_SYNC_COND || s->op == EXP_SYNC_SEM || s->op == EXP_SYNC_BARRIER ||
			   s->op == EXP_SYNC_FUTEX) {
			uint64_t *v = model_map_get(&wake, key);
			const struct exp_sync_wake *k = v ? &p->wakes[*v - 1] : NULL;
			if (k && k->tid == s->tid && k->time_ns == s->time_ns && k->object == s->object &&
			    k->waker_tid != s->tid && k->wake_ns >= x->req_ns && k->wake_ns <= s->time_ns) {
				x->waker_tid = k->waker_tid;
				x->wake_ns = k->wake_ns;
			}
		} else {
			uint64_t *v = model_map_get(&held, key);
			const struct exp_sync_held *h = v ? &p->held[*v - 1] : NULL;
			if (h && h->tid == s->tid && h->time_ns == s->time_ns && h->why == EXP_HELD_KNOWN &&
			    h->holder_tid != s->tid) {
				x->waker_tid = h->holder_tid;
				x->wake_ns = s->time_ns;
			}
		}
		if (!x->waker_tid && (s->flags & EXP_SYNC_F_SHARED))
			x->kind = MODEL_CRIT_SHARED;   /* its waker may be another process */
	}
	rc = 0;
out:
	model_map_free(&held);
	model_map_free(&wake);
	model_map_free(&keys);
	free(ends.by_end);
	return rc;
}

/* A write into a channel (or a read from one): the channel, its thread,
 * span and stack. */
struct cwrite {
	uint64_t chan;
	uint64_t start, end;
	uint32_t tid;
	uint32_t stack_id;
	uint32_t proc;             /* its process's index */
};

static int cmp_cwrite(const void *a, const void *b)
{
	const struct cwrite *x = a, *y = b;

	if (x->chan != y->chan)
		return x->chan < y->chan ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_flow(const void *a, const void *b)
{
	const struct exp_fd_flow *x = a, *y = b;

	if (x->fd != y->fd)
		return x->fd < y->fd ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* The descriptors' names and flows, each sorted by (fd, time). */
struct fdmaps {
	struct exp_fd_ev *fds;
	size_t nfds;
	struct exp_fd_flow *flows;
	size_t nflows;
};

/* The last name of fd at or before t (fds sorted by fd, time), or NULL. */
static const struct exp_fd_ev *name_at(const struct fdmaps *m, int32_t fd, uint64_t t)
{
	size_t lo = 0, hi = m->nfds;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->fds[mid].fd < fd || (m->fds[mid].fd == fd && m->fds[mid].time_ns <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && m->fds[lo - 1].fd == fd ? &m->fds[lo - 1] : NULL;
}

/* The same for flows. */
static const struct exp_fd_flow *flow_at(const struct fdmaps *m, int32_t fd, uint64_t t)
{
	size_t lo = 0, hi = m->nflows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->flows[mid].fd < fd || (m->flows[mid].fd == fd && m->flows[mid].time_ns <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && m->flows[lo - 1].fd == fd ? &m->flows[lo - 1] : NULL;
}

/* Does descriptor fd still stand for what it named at `since`, given its
 * name n now?  Yes if n is not newer, or is the same name again: a
 * descriptor made by a call no interposer sees (an eventfd) is named at its
 * first use, and two threads using it at once may both name it. */
static bool same_since(const struct fdmaps *m, int32_t fd, uint64_t since, const struct exp_fd_ev *n)
{
	if (!n || n->time_ns <= since)
		return true;
	const struct exp_fd_ev *then = name_at(m, fd, since);
	return then && then->name && n->name && !strcmp(then->name, n->name);
}

/* The channel io record s reads from (rx) or writes into (!rx): its
 * descriptor's flow (FD_FLOW) as the call ended, if the descriptor still
 * stands for what it named then (else the flow is a closed descriptor's,
 * same_since); without
 * one (an experiment before flows were recorded), a pipe by its name,
 * `pipe:[inode]`, the same for both ends.  0: none. */
static uint64_t channel_of(const struct fdmaps *m, const struct exp_io *s, bool rx)
{
	uint64_t end = s->time_ns + s->dur_ns;
	const struct exp_fd_ev *n = name_at(m, s->fd, end);
	const struct exp_fd_flow *f = flow_at(m, s->fd, end);

	if (f && same_since(m, s->fd, f->time_ns, n))
		return rx ? f->rx : f->tx;
	return n && !strncmp(n->name, "pipe:", 5) ? model_hash_str(0, n->name) | 1 : 0;
}

/* The latest write in cw (sorted by channel, start) into `chan` by a
 * thread other than `tid` that started within [start, end] (a read that
 * began while a write was under way did not wait for it: the write waited
 * for the read); NULL if none. */
static const struct cwrite *latest_write(const struct cwrite *cw, size_t ncw, uint64_t chan, uint32_t tid,
					 uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = ncw;      /* the first write after (chan, end) */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cw[mid].chan < chan || (cw[mid].chan == chan && cw[mid].start <= end))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k > 0 && cw[k - 1].chan == chan && cw[k - 1].start >= start; k--)
		if (cw[k - 1].tid != tid)
			return &cw[k - 1];
	return NULL;
}

/* The read in cr (reads that took bytes, sorted by channel, start) from
 * `chan` by a thread other than `tid` that started latest within (start,
 * end]; NULL if none. */
static const struct cwrite *read_within(const struct cwrite *cr, size_t ncr, uint64_t chan, uint32_t tid,
					uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = ncr;      /* the first read after (chan, end) */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cr[mid].chan < chan || (cr[mid].chan == chan && cr[mid].start <= end))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k > 0 && cr[k - 1].chan == chan && cr[k - 1].start > start; k--)
		if (cr[k - 1].tid != tid)
			return &cr[k - 1];
	return NULL;
}

static int cmp_watch(const void *a, const void *b)
{
	const struct exp_fd_watch *x = a, *y = b;

	if (x->epfd != y->epfd)
		return x->epfd < y->epfd ? -1 : 1;
	if (x->fd != y->fd)
		return x->fd < y->fd ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* The channel descriptor fd read from (writes into, if `tx`) at time t
 * (its flow then, if the descriptor still stands for what it named then:
 * same_since), or 0. */
static uint64_t fd_channel(const struct fdmaps *m, int32_t fd, uint64_t t, bool tx)
{
	const struct exp_fd_ev *n = name_at(m, fd, t);
	const struct exp_fd_flow *f = flow_at(m, fd, t);

	return f && same_since(m, fd, f->time_ns, n) ? (tx ? f->tx : f->rx) : 0;
}

/* The writes into channels and the reads from them (that took bytes), each
 * sorted by (channel, start). */
struct chanio {
	const struct cwrite *cw, *cr;
	size_t ncw, ncr;
};

/* The latest write that could have ended wait `fw` (see latest_write) into
 * the channel of descriptor fd; for a descriptor waited on to write
 * (`writes`: POLLOUT, EPOLLOUT), the latest read from its channel by another
 * thread that began within the wait (it made the room: read_within). */
static const struct cwrite *fd_waker(const struct fdmaps *m, const struct chanio *io,
				     const struct exp_fd_wait_ev *fw, int32_t fd, bool writes,
				     const struct cwrite *best)
{
	uint64_t end = fw->time_ns + fw->dur_ns, chan = fd_channel(m, fd, end, writes);
	const struct cwrite *by = !chan ? NULL
				: writes ? read_within(io->cr, io->ncr, chan, fw->tid, fw->time_ns, end)
					 : latest_write(io->cw, io->ncw, chan, fw->tid, fw->time_ns, end);

	return by && (!best || by->start > best->start) ? by : best;
}

#define EPOLL_NEST_MAX 4             /* epoll sets within sets followed this deep */

/* The first of the FD_WATCH records (sorted by epfd, fd, time) of epfd. */
static size_t first_watch(const struct exp_fd_watch *watches, size_t n, int32_t epfd)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (watches[mid].epfd < epfd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The latest write that could have ended epoll wait `fw` on set epfd: over
 * the set's interest list at the wait's end (each descriptor's last change
 * before it, if asking to read and not older than the descriptor's name,
 * else it was closed since); a descriptor that is itself an epoll set with
 * an interest list (nested epoll) is followed into it. */
static const struct cwrite *epoll_waker(const struct exp_proc *p, const struct fdmaps *m,
					const struct exp_fd_watch *watches, const struct chanio *io,
					const struct exp_fd_wait_ev *fw, int32_t epfd, int depth,
					const struct cwrite *by)
{
	uint64_t end = fw->time_ns + fw->dur_ns;

	for (size_t k = first_watch(watches, p->nwatches, epfd); k < p->nwatches && watches[k].epfd == epfd; k++) {
		const struct exp_fd_watch *x = &watches[k];
		if (x->time_ns > end ||
		    (k + 1 < p->nwatches && watches[k + 1].epfd == x->epfd && watches[k + 1].fd == x->fd &&
		     watches[k + 1].time_ns <= end))
			continue;     /* not yet, or not its last change by then */
		const struct exp_fd_ev *n = name_at(m, x->fd, end);
		bool reads = x->events & 0x1 /* EPOLLIN */, writes = !reads && (x->events & 0x4 /* EPOLLOUT */);
		if (x->op == 2 /* EPOLL_CTL_DEL */ || (!reads && !writes) || !same_since(m, x->fd, x->time_ns, n))
			continue;
		size_t inner = first_watch(watches, p->nwatches, x->fd);
		if (reads && x->fd != epfd && depth < EPOLL_NEST_MAX && inner < p->nwatches &&
		    watches[inner].epfd == x->fd)
			by = epoll_waker(p, m, watches, io, fw, x->fd, depth + 1, by);
		else
			by = fd_waker(m, io, fw, x->fd, writes, by);
	}
	return by;
}

/* Waits in poll, select and epoll: each goes to the latest write into any
 * of its descriptors' channels that overlapped it; without one, it is a
 * wait of no known cause.  watches: the FD_WATCH records sorted by (epfd,
 * fd, time). */
static int fd_waits(const struct exp_proc *p, uint32_t j, const struct fdmaps *m, const struct exp_fd_watch *watches,
		    const struct chanio *io, struct waits *w)
{
	for (size_t i = 0; i < p->nfdwaits; i++) {
		const struct exp_fd_wait_ev *fw = &p->fdwaits[i];
		const int32_t *fds = p->wait_fds + fw->first;
		uint64_t end = fw->time_ns + fw->dur_ns;
		const struct cwrite *by = NULL;
		if (!(fw->flags & EXP_WAIT_EPOLL)) {
			for (uint32_t k = 0; k < fw->nfds; k++) {
				bool writes = (fw->flags & EXP_WAIT_WRITES) && fds[k] < 0;
				by = fd_waker(m, io, fw, writes ? ~fds[k] : fds[k], writes, by);
			}
		} else if (fw->nfds == 1) {
			by = epoll_waker(p, m, watches, io, fw, fds[0], 0, NULL);
		}
		struct crit_wait *x = wait_new(w);
		if (!x)
			return -1;
		*x = (struct crit_wait){ .proc = j, .tid = fw->tid, .time_ns = end, .req_ns = fw->time_ns,
					 .stack_id = fw->stack_id, .kind = MODEL_CRIT_FD_WAIT };
		if (by) {
			x->waker_tid = by->tid;
			x->waker_proc = by->proc;
			x->wake_ns = by->end < end ? by->end : end;
		}
	}
	return 0;
}

/* Process p's descriptors' names and flows, and its FD_WATCH records
 * sorted by (epfd, fd, time) in *watches: 0, or -1 out of memory. */
static int proc_maps(const struct exp_proc *p, struct fdmaps *m, struct exp_fd_watch **watches)
{
	if ((p->nfds && !(m->fds = malloc(p->nfds * sizeof(*m->fds)))) ||
	    (p->nflows && !(m->flows = malloc(p->nflows * sizeof(*m->flows)))) ||
	    (p->nwatches && !(*watches = malloc(p->nwatches * sizeof(**watches)))))
		return -1;
	if (p->nfds)
		memcpy(m->fds, p->fds, p->nfds * sizeof(*m->fds));
	if (p->nflows)
		memcpy(m->flows, p->flows, p->nflows * sizeof(*m->flows));
	if (p->nwatches) {
		memcpy(*watches, p->watches, p->nwatches * sizeof(**watches));
		qsort(*watches, p->nwatches, sizeof(**watches), cmp_watch);
	}
	m->nfds = p->nfds;
	m->nflows = p->nflows;
	if (m->nfds)
		qsort(m->fds, m->nfds, sizeof(*m->fds), model_io_cmp_fd_ev);
	if (m->nflows)
		qsort(m->flows, m->nflows, sizeof(*m->flows), cmp_flow);
	return 0;
}

/* Process j's writes into channels (cw) and reads from them that took
 * bytes (cr), appended. */
static void proc_chanio(const struct exp_proc *p, uint32_t j, const struct fdmaps *m, struct cwrite *cw, size_t *ncw,
			struct cwrite *cr, size_t *ncr)
{
	for (size_t i = 0; i < p->nio; i++) {
		const struct exp_io *s = &p->io[i];
		uint64_t chan;
		if (s->flags & (EXP_IO_SAME_CALL | EXP_IO_BUFFERED))
			continue;
		if (s->op == EXP_IO_WRITE && (chan = channel_of(m, s, false)))
			cw[(*ncw)++] = (struct cwrite){ chan, s->time_ns, s->time_ns + s->dur_ns, s->tid, s->stack_id, j };
		else if (s->op == EXP_IO_READ && s->bytes > 0 && (chan = channel_of(m, s, true)))
			cr[(*ncr)++] = (struct cwrite){ chan, s->time_ns, s->time_ns + s->dur_ns, s->tid, s->stack_id, j };
	}
}

/* Every process's writes into a full channel that a read by another thread
 * (of any of the processes) drained: one pass over all the writes. */
static int full_channel_waits(const struct chanio *io, struct waits *w)
{
	for (size_t i = 0; i < io->ncw && io->ncr; i++) {
		const struct cwrite *x = &io->cw[i];
		const struct cwrite *by = read_within(io->cr, io->ncr, x->chan, x->tid, x->start, x->end);
		if (!by)
			continue;
		struct crit_wait *y = wait_new(w);
		if (!y)
			return -1;
		*y = (struct crit_wait){ .proc = x->proc, .tid = x->tid, .time_ns = x->end, .req_ns = x->start,
					 .stack_id = x->stack_id, .waker_tid = by->tid, .waker_proc = by->proc,
					 .wake_ns = by->end < x->end ? by->end : x->end, .kind = MODEL_CRIT_WRITE };
	}
	return 0;
}

/* Process j's reads that a write by another thread (of any of the
 * processes) into the channel they read from ended, and its waits in poll,
 * select and epoll. */
static int proc_channel_waits(const struct exp_proc *p, uint32_t j, const struct fdmaps *m,
			      const struct exp_fd_watch *watches, const struct chanio *io, struct waits *w)
{
	for (size_t i = 0; i < p->nio && io->ncw; i++) {
		const struct exp_io *s = &p->io[i];
		uint64_t chan, end = s->time_ns + s->dur_ns;
		if (s->op != EXP_IO_READ || (s->flags & (EXP_IO_SAME_CALL | EXP_IO_BUFFERED)) || !(chan = channel_of(m, s, true)))
			continue;
		const struct cwrite *by = latest_write(io->cw, io->ncw, chan, s->tid, s->time_ns, end);
		if (!by)
			continue;
		struct crit_wait *x = wait_new(w);
		if (!x)
			return -1;
		*x = (struct crit_wait){ .proc = j, .tid = s->tid, .time_ns = end, .req_ns = s->time_ns,
					 .stack_id = s->stack_id, .waker_tid = by->tid, .waker_proc = by->proc,
					 .wake_ns = by->end < end ? by->end : end, .kind = MODEL_CRIT_READ };
	}
	return fd_waits(p, j, m, watches, io, w);
}

/* Reads, writes into full channels and waits in poll, select and epoll of
 * every process, each woken by a thread of any of them. */
static int channel_waits(const struct exp_proc *const *procs, size_t nprocs, struct waits *w)
{
	struct fdmaps *m = calloc(nprocs + 1, sizeof(*m));
	struct exp_fd_watch **watches = calloc(nprocs + 1, sizeof(*watches));
	struct cwrite *cw = NULL, *cr = NULL;
	size_t ncw = 0, ncr = 0, nio = 0;
	int rc = -1;

	for (size_t j = 0; j < nprocs; j++)
		nio += procs[j]->nio;
	if (!m || !watches || (nio && (!(cw = malloc(nio * sizeof(*cw))) || !(cr = malloc(nio * sizeof(*cr))))))
		goto out;
	for (size_t j = 0; j < nprocs; j++) {
		const struct exp_proc *p = procs[j];
		if (!p->nfdwaits && (!p->nio || (!p->nfds && !p->nflows)))
			continue;
		if (proc_maps(p, &m[j], &watches[j]))
			goto out;
		proc_chanio(p, (uint32_t)j, &m[j], cw, &ncw, cr, &ncr);
	}
	if (ncw)
		qsort(cw, ncw, sizeof(*cw), cmp_cwrite);
	if (ncr)
		qsort(cr, ncr, sizeof(*cr), cmp_cwrite);
	struct chanio io = { cw, cr, ncw, ncr };
	if (full_channel_waits(&io, w))
		goto out;
	for (size_t j = 0; j < nprocs; j++) {
		const struct exp_proc *p = procs[j];
		if ((p->nfdwaits || (p->nio && (p->nfds || p->nflows))) &&
		    proc_channel_waits(p, (uint32_t)j, &m[j], watches[j], &io, w))
			goto out;
	}
	rc = 0;
out:
	for (size_t j = 0; m && watches && j < nprocs; j++) {
		free(m[j].fds);
		free(m[j].flows);
		free(watches[j]);
	}
	free(m);
	free(watches);
	free(cw);
	free(cr);
	return rc;
}

int model_critical_waits(const struct exp_proc *const *procs, size_t nprocs, struct model_proc_index *ix,
			 struct crit_wait **out, size_t *n)
{
	struct waits w = { 0 };
	struct releases rel = { 0 };
	struct model_proc_index own = { 0 };

	if (!ix && model_proc_index_build(ix = &own, procs, nprocs))
		return -1;
	if (all_releases(procs, nprocs, &rel)) {
		model_proc_index_free(&own);
		return -1;
	}
	for (size_t j = 0; j < nprocs; j++)
		if (sync_waits(procs, nprocs, ix, j, &rel, &w)) {
			free(rel.v);
			free(w.v);
			model_proc_index_free(&own);
			return -1;
		}
	free(rel.v);
	model_proc_index_free(&own);
	if (channel_waits(procs, nprocs, &w)) {
		free(w.v);
		return -1;
	}
	if (w.n)
		qsort(w.v, w.n, sizeof(*w.v), cmp_wait);
	*out = w.v;
	*n = w.n;
	return 0;
}
