/* SPDX-License-Identifier: MIT
 *
 * mpi_trace.c — the common part of libtally-mpi.so: when to trace, the
 * record of a call, communicators (their ids, the MPI_COMM_WORLD ranks of
 * their members), the nonblocking requests in flight, and what is logged at
 * MPI_Init.  Called by the wrappers (mpi_c.c, mpi_fortran.c) from any thread
 * that calls MPI, never from a signal handler.
 *
 * Communicators live in one table shared by the threads (a spinlock: taken
 * only outside the real MPI calls, so it never waits on MPI); requests in a
 * table per thread (a request completed by another thread than the one that
 * started it is counted as untracked).  Both tables are mmap'd, not malloc'd,
 * so that the heap tracer never sees them.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "tracers/mpi_clock.h"
#include "tracers/mpi_trace.h"

static struct trace_switch on;
static __thread int inside;            /* in a traced MPI call */

bool mpi_begin(struct mpi_call *c, enum exp_mpi_op op)
{
	c->on = false;
	if (inside || trace_option(&on, "mpi") <= 0)
		return false;
	inside = 1;
	memset(&c->r, 0, sizeof(c->r));
	c->r.op = (uint16_t)op;
	c->r.dest = c->r.source = EXP_MPI_PEER_NONE;
	c->r.tag = -1;
	c->r.comm = EXP_MPI_COMM_NONE;
	c->on = true;
	c->r.time_ns = tally__now();
	return true;
}

int mpi_end(struct mpi_call *c, struct trace_caller at, int rc)
{
	if (!c->on)
		return rc;
	tally__trace_event(EXP_FILE_MPI, EXP_REC_MPI, &c->r, sizeof(c->r), at.ra, at.sp, at.fp);
	inside = 0;
	return rc;
}

uint64_t mpi_bytes(int count, MPI_Datatype type)
{
	int size = 0;

	if (count <= 0 || PMPI(Type_size)(type, &size) != MPI_SUCCESS || size < 0)
		return 0;
	return (uint64_t)count * (uint64_t)size;
}

/* ---- communicators ------------------------------------------------------ */

#define COMM_SLOTS 1024
#define COMM_GONE 1                    /* key of a forgotten slot */

struct comm_slot {
	uint64_t key;                  /* the handle's bits; 0 empty */
	uint32_t id;
	int32_t size;                  /* members (remote group's, if inter) */
	int32_t *world;                /* their MPI_COMM_WORLD ranks (mmap'd), or NULL */
	size_t world_bytes;
};

static struct comm_slot comms[COMM_SLOTS];
static uint32_t next_comm_id = 2;      /* 0 is MPI_COMM_WORLD, 1 MPI_COMM_SELF */
static atomic_flag comm_lock = ATOMIC_FLAG_INIT;

static uint64_t comm_key(MPI_Comm comm)
{
	uint64_t k = 0;

	memcpy(&k, &comm, sizeof(comm) < sizeof(k) ? sizeof(comm) : sizeof(k));
	return k;
}

static void lock(void)
{
	while (atomic_flag_test_and_set_explicit(&comm_lock, memory_order_acquire))
		;
}

static void unlock(void)
{
	atomic_flag_clear_explicit(&comm_lock, memory_order_release);
}

static void log_comm(uint32_t id, MPI_Comm comm)
{
	struct exp_mpi_comm r = { .id = id };
	int inter = 0, size = 0, rank = -1, remote = 0;

	PMPI(Comm_test_inter)(comm, &inter);
	PMPI(Comm_size)(comm, &size);
	PMPI(Comm_rank)(comm, &rank);
	if (inter)
		PMPI(Comm_remote_size)(comm, &remote);
	r.size = (uint32_t)size;
	r.rank = rank;
	r.flags = inter ? EXP_MPI_COMM_INTER : 0;
	r.remote_size = (uint32_t)remote;
	tally__trace_event(EXP_FILE_MPI, EXP_REC_MPI_COMM, &r, sizeof(r), 0, 0, 0);
}

/* The MPI_COMM_WORLD ranks of comm's members (its remote group's for an
 * intercommunicator) into s->world. */
static void translate(struct comm_slot *s, MPI_Comm comm)
{
	MPI_Group group, world;
	int inter = 0, n = 0;

	PMPI(Comm_test_inter)(comm, &inter);
	if ((inter ? PMPI(Comm_remote_group)(comm, &group) : PMPI(Comm_group)(comm, &group)) !=
	    MPI_SUCCESS)
		return;
	if (PMPI(Group_size)(group, &n) == MPI_SUCCESS && n > 0 &&
	    PMPI(Comm_group)(MPI_COMM_WORLD, &world) == MPI_SUCCESS) {
		size_t bytes = 2 * (size_t)n * sizeof(int32_t);
		int32_t *in = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (in != MAP_FAILED) {
			for (int i = 0; i < n; i++)
				in[i] = i;
			if (PMPI(Group_translate_ranks)(group, n, in, world, in + n) == MPI_SUCCESS) {
				s->world = in;
				s->world_bytes = bytes;
				s->size = n;
			} else {
				munmap(in, bytes);
			}
		}
		PMPI(Group_free)(&world);
	}
	PMPI(Group_free)(&group);
}

/* The slot of `comm`, made on first sight; NULL if the table is full.
 * Called with the lock held. */
static struct comm_slot *comm_slot(MPI_Comm comm)
{
	uint64_t key = comm_key(comm);
	uint32_t h = (uint32_t)((key >> 3) * 0x9e3779b97f4a7c15ull >> 54);
	struct comm_slot *free_slot = NULL;

	for (uint32_t i = 0; i < COMM_SLOTS; i++) {
		struct comm_slot *s = &comms[(h + i) % COMM_SLOTS];
		if (s->key == key)
			return s;
		if (s->key == COMM_GONE && !free_slot)
			free_slot = s;
		if (!s->key) {
			if (!free_slot)
				free_slot = s;
			break;
		}
	}
	if (!free_slot)
		return NULL;
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->key = key;
	free_slot->id = next_comm_id++;
	translate(free_slot, comm);
	log_comm(free_slot->id, comm);
	return free_slot;
}

void mpi_comm(struct mpi_call *c, MPI_Comm comm)
{
	if (!c->on)
		return;
	if (comm == MPI_COMM_WORLD) {
		c->r.comm = 0;
	} else if (comm == MPI_COMM_SELF) {
		c->r.comm = 1;
	} else {
		lock();
		struct comm_slot *s = comm_slot(comm);
		c->r.comm = s ? s->id : EXP_MPI_COMM_NONE;
		unlock();
	}
}

void mpi_comm_forget(MPI_Comm comm)
{
	uint64_t key = comm_key(comm);

	if (!key || comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF)
		return;
	lock();
	for (uint32_t i = 0; i < COMM_SLOTS; i++) {
		struct comm_slot *s = &comms[i];
		if (s->key != key)
			continue;
		if (s->world)
			munmap(s->world, s->world_bytes);
		memset(s, 0, sizeof(*s));
		s->key = COMM_GONE;
		break;
	}
	unlock();
}

/* Members of comm (of its remote group, if an intercommunicator). */
static int comm_size(MPI_Comm comm)
{
	int inter = 0, size = 0;

	PMPI(Comm_test_inter)(comm, &inter);
	if (inter)
		PMPI(Comm_remote_size)(comm, &size);
	else
		PMPI(Comm_size)(comm, &size);
	return size;
}

int mpi_comm_rank(MPI_Comm comm)
{
	int rank = -1;

	PMPI(Comm_rank)(comm, &rank);
	return rank;
}

static bool is_root(MPI_Comm comm, int root)
{
	int inter = 0;

	if (root == MPI_ROOT)
		return true;
	PMPI(Comm_test_inter)(comm, &inter);
	return !inter && mpi_comm_rank(comm) == root;
}

int32_t mpi_world_rank(MPI_Comm comm, int rank)
{
	int32_t world = EXP_MPI_PEER_UNKNOWN;

	if (rank == MPI_PROC_NULL)
		return EXP_MPI_PEER_NONE;
	if (rank == MPI_ANY_SOURCE)
		return EXP_MPI_PEER_UNKNOWN;
	if (comm == MPI_COMM_WORLD)
		return rank;
	lock();
	struct comm_slot *s = comm_slot(comm);
	if (s && s->world && rank >= 0 && rank < s->size && s->world[s->size + rank] != MPI_UNDEFINED)
		world = s->world[s->size + rank];
	unlock();
	if (world == EXP_MPI_PEER_UNKNOWN)
		tally__count(EXP_CTR_MPI_UNKNOWN_PEER, 1);
	return world;
}

/* ---- describing calls --------------------------------------------------- */

/* A peer field that already names someone else names several. */
static void merge_peer(int32_t *field, int32_t peer)
{
	if (*field == EXP_MPI_PEER_NONE)
		*field = peer;
	else if (*field != peer)
		*field = EXP_MPI_PEER_MANY;
}

static bool has_status(const MPI_Status *st)
{
	return st && st != MPI_STATUS_IGNORE;
}

void mpi_sent(struct mpi_call *c, MPI_Comm comm, int dest, int tag, int count, MPI_Datatype type)
{
	if (!c->on)
		return;
	mpi_comm(c, comm);
	if (dest == MPI_PROC_NULL)
		return;
	c->r.bytes_sent += mpi_bytes(count, type);
	c->r.sends++;
	merge_peer(&c->r.dest, mpi_world_rank(comm, dest));
	c->r.tag = tag;
}

void mpi_received(struct mpi_call *c, MPI_Comm comm, int source, int tag, int count,
		  MPI_Datatype type, const MPI_Status *st)
{
	if (!c->on)
		return;
	mpi_comm(c, comm);
	if (source == MPI_PROC_NULL)
		return;
	if (has_status(st) && source == MPI_ANY_SOURCE)
		source = st->MPI_SOURCE;
	if (has_status(st) && tag == MPI_ANY_TAG)
		tag = st->MPI_TAG;
	c->r.bytes_recv += mpi_bytes(count, type);
	c->r.recvs++;
	merge_peer(&c->r.source, mpi_world_rank(comm, source));
	if (c->r.tag == -1)
		c->r.tag = tag;
}

void mpi_probed(struct mpi_call *c, MPI_Comm comm, int source, const MPI_Status *st)
{
	if (!c->on)
		return;
	mpi_comm(c, comm);
	if (has_status(st)) {
		c->r.source = mpi_world_rank(comm, st->MPI_SOURCE);
		c->r.tag = st->MPI_TAG;
	} else if (source >= 0) {
		c->r.source = mpi_world_rank(comm, source);
	}
}

/* Sum of counts[0..n), or n x count when there is no array. */
static uint64_t total_count(int n, int count, const int *counts)
{
	uint64_t sum = 0;

	if (!counts)
		return count > 0 && n > 0 ? (uint64_t)n * (uint64_t)count : 0;
	for (int i = 0; i < n; i++)
		sum += counts[i] > 0 ? (uint64_t)counts[i] : 0;
	return sum;
}

/* Set the collective's bytes and messages; a side with one message names
 * `root` (a rank of comm; < 0: several). */
static void coll(struct mpi_call *c, MPI_Comm comm, int root, uint64_t sent, uint32_t sends,
		 uint64_t recvd, uint32_t recvs)
{
	mpi_comm(c, comm);
	int32_t one = root >= 0 ? mpi_world_rank(comm, root) : EXP_MPI_PEER_MANY;
	c->r.bytes_sent = sent;
	c->r.sends = sends;
	c->r.bytes_recv = recvd;
	c->r.recvs = recvs;
	c->r.dest = !sends ? EXP_MPI_PEER_NONE : sends > 1 ? EXP_MPI_PEER_MANY : one;
	c->r.source = !recvs ? EXP_MPI_PEER_NONE : recvs > 1 ? EXP_MPI_PEER_MANY : one;
}

/* MPI_PROC_NULL as the root: this member of an intercommunicator's root
 * group takes no part. */
static bool idle(struct mpi_call *c, MPI_Comm comm, int root)
{
	if (root != MPI_PROC_NULL)
		return false;
	mpi_comm(c, comm);
	return true;
}

void mpi_coll_bcast(struct mpi_call *c, MPI_Comm comm, int root, uint64_t n)
{
	if (!c->on || idle(c, comm, root))
		return;
	int g = comm_size(comm);
	bool me = is_root(comm, root);
	coll(c, comm, root, me ? (uint64_t)g * n : 0, me ? (uint32_t)g : 0, root == MPI_ROOT ? 0 : n,
	     root == MPI_ROOT ? 0 : 1);
}

void mpi_coll_to_root(struct mpi_call *c, MPI_Comm comm, int root, uint64_t part, int rcount,
		      const int *rcounts, MPI_Datatype rtype)
{
	if (!c->on || idle(c, comm, root))
		return;
	int g = comm_size(comm);
	bool me = is_root(comm, root);
	uint64_t in = me ? total_count(g, rcount, rcounts) * mpi_bytes(1, rtype) : 0;
	coll(c, comm, root, root == MPI_ROOT ? 0 : part, root == MPI_ROOT ? 0 : 1, in,
	     me ? (uint32_t)g : 0);
}

void mpi_coll_from_root(struct mpi_call *c, MPI_Comm comm, int root, int scount,
			const int *scounts, MPI_Datatype stype, uint64_t part)
{
	if (!c->on || idle(c, comm, root))
		return;
	int g = comm_size(comm);
	bool me = is_root(comm, root);
	uint64_t out = me ? total_count(g, scount, scounts) * mpi_bytes(1, stype) : 0;
	coll(c, comm, root, out, me ? (uint32_t)g : 0, root == MPI_ROOT ? 0 : part,
	     root == MPI_ROOT ? 0 : 1);
}

void mpi_coll_all(struct mpi_call *c, MPI_Comm comm, int scount, const int *scounts,
		  MPI_Datatype stype, int rcount, const int *rcounts, MPI_Datatype rtype)
{
	if (!c->on)
		return;
	int g = comm_size(comm);
	coll(c, comm, -1, total_count(g, scount, scounts) * mpi_bytes(1, stype), (uint32_t)g,
	     total_count(g, rcount, rcounts) * mpi_bytes(1, rtype), (uint32_t)g);
}

void mpi_coll_one(struct mpi_call *c, MPI_Comm comm, uint64_t n)
{
	if (!c->on)
		return;
	coll(c, comm, -1, n, 1, n, 1);
}

/* ---- requests in flight (per thread) ------------------------------------ */

#define REQ_SLOTS 4096u
#define REQ_PROBES 8u

enum req_kind { REQ_EMPTY, REQ_SEND, REQ_RECV, REQ_OTHER };

struct req_slot {
	uint64_t key;                  /* the request's bits; with REQ_EMPTY: free again */
	MPI_Comm comm;                 /* to translate an MPI_ANY_SOURCE's status */
	int32_t peer, tag;
	uint32_t kind;                 /* enum req_kind */
	uint32_t comm_id;              /* as in the records */
};

static __thread struct req_slot *inflight;

static uint64_t req_key(MPI_Request req)
{
	uint64_t k = 0;

	memcpy(&k, &req, sizeof(req) < sizeof(k) ? sizeof(req) : sizeof(k));
	return k;
}

static uint32_t req_hash(uint64_t key)
{
	return (uint32_t)((key >> 3) * 0x9e3779b97f4a7c15ull >> 52);
}

void mpi_request_started(const struct mpi_call *c, MPI_Request req, MPI_Comm comm)
{
	uint64_t key = req_key(req);

	if (!c->on || req == MPI_REQUEST_NULL || !key)
		return;
	if (!inflight) {
		void *p = mmap(NULL, REQ_SLOTS * sizeof(*inflight), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return;
		inflight = p;
	}
	struct req_slot *free_slot = NULL;
	for (uint32_t i = 0, h = req_hash(key); i < REQ_PROBES; i++) {
		struct req_slot *s = &inflight[(h + i) % REQ_SLOTS];
		if (s->key == key || (s->kind == REQ_EMPTY && !free_slot))
			free_slot = s;
		if (s->key == key)
			break;
	}
	if (!free_slot)
		return;             /* counted when it completes */
	free_slot->key = key;
	free_slot->kind = c->r.recvs && !c->r.sends ? REQ_RECV : c->r.sends && !c->r.recvs ? REQ_SEND
											     : REQ_OTHER;
	free_slot->peer = free_slot->kind == REQ_RECV ? c->r.source : c->r.dest;
	free_slot->tag = c->r.tag;
	free_slot->comm = comm;
	free_slot->comm_id = c->r.comm;
}

void mpi_request_done(struct mpi_call *c, MPI_Request req, const MPI_Status *st)
{
	uint64_t key = req_key(req);
	struct req_slot *s = NULL;

	if (!c->on || req == MPI_REQUEST_NULL || !key)
		return;
	c->r.flags |= EXP_MPI_COMPLETES;
	for (uint32_t i = 0, h = req_hash(key); inflight && i < REQ_PROBES && !s; i++)
		if (inflight[(h + i) % REQ_SLOTS].key == key && inflight[(h + i) % REQ_SLOTS].kind != REQ_EMPTY)
			s = &inflight[(h + i) % REQ_SLOTS];
	if (!s) {
		tally__count(EXP_CTR_MPI_UNTRACKED, 1);
		return;
	}
	if (s->kind == REQ_SEND) {
		c->r.sends++;
		merge_peer(&c->r.dest, s->peer);
	} else if (s->kind == REQ_RECV) {
		c->r.recvs++;
		int32_t peer = s->peer;
		if (peer == EXP_MPI_PEER_UNKNOWN && has_status(st))
			peer = mpi_world_rank(s->comm, st->MPI_SOURCE);
		merge_peer(&c->r.source, peer);
	}
	if (c->r.tag == -1)
		c->r.tag = s->tag;
	if (c->r.comm == EXP_MPI_COMM_NONE)
		c->r.comm = s->comm_id;
	s->kind = REQ_EMPTY;
}

static __thread MPI_Request *saved;   /* mmap'd scratch of saved_cap handles */
static __thread size_t saved_cap;

MPI_Request *mpi_requests_save(struct mpi_call *c, int n, const MPI_Request *reqs)
{
	if (!c->on || n <= 0)
		return NULL;
	if ((size_t)n > saved_cap) {
		size_t cap = saved_cap ? saved_cap : 512;
		while (cap < (size_t)n)
			cap *= 2;
		void *p = mmap(NULL, cap * sizeof(*saved), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		if (saved)
			munmap(saved, saved_cap * sizeof(*saved));
		saved = p;
		saved_cap = cap;
	}
	if (reqs)
		memcpy(saved, reqs, (size_t)n * sizeof(*saved));
	return saved;
}

void mpi_requests_done(struct mpi_call *c, const MPI_Request *was, int n, const int *indices,
		       const MPI_Status *statuses)
{
	if (!c->on || !was)
		return;
	for (int k = 0; k < n; k++)
		mpi_request_done(c, was[indices ? indices[k] : k],
				 statuses != MPI_STATUSES_IGNORE ? &statuses[k] : NULL);
}

/* ---- initialization ----------------------------------------------------- */

static void log_int(const char *key, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	tally__log(key, buf);
}

void mpi_after_init(int rc)
{
	int rank = -1, size = 0, len = 0;
	char text[MPI_MAX_LIBRARY_VERSION_STRING > MPI_MAX_PROCESSOR_NAME ?
		  MPI_MAX_LIBRARY_VERSION_STRING : MPI_MAX_PROCESSOR_NAME];

	if (rc != MPI_SUCCESS || trace_option(&on, "mpi") <= 0)
		return;
	PMPI(Comm_rank)(MPI_COMM_WORLD, &rank);
	PMPI(Comm_size)(MPI_COMM_WORLD, &size);
	log_int("mpi.rank", rank);
	log_int("mpi.size", size);
	log_int("mpi.init.mono_ns", (long long)tally__now());
	if (PMPI(Get_processor_name)(text, &len) == MPI_SUCCESS && len > 0)
		tally__log("mpi.processor", text);
	if (PMPI(Get_library_version)(text, &len) == MPI_SUCCESS && len > 0) {
		text[strcspn(text, ",\n")] = 0;
		tally__log("mpi.library", text);
	}
	log_comm(0, MPI_COMM_WORLD);
	log_comm(1, MPI_COMM_SELF);
	mpi_clock_measure(false);
}

void mpi_before_finalize(void)
{
	if (trace_option(&on, "mpi") > 0) {
		mpi_clock_measure(true);
		log_int("mpi.finalize.mono_ns", (long long)tally__now());
	}
}
