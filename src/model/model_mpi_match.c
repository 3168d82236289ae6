/* SPDX-License-Identifier: MIT
 *
 * model_mpi_match.c — a job's point-to-point messages matched, each send to
 * its receive, and the ranks' clocks checked (and tightened) by them: a
 * message cannot be received before it is sent (docs/mpi.md "Time across
 * hosts").
 *
 * model_mpi.c notes each message's ends as the ranks are built: a send at
 * its call's start (MPI_Send, MPI_Isend, MPI_Sendrecv ...), a receive at the
 * end of the call that completed it (MPI_Recv, MPI_Sendrecv, or the
 * MPI_Wait / MPI_Test family completing an MPI_Irecv), both on rank 0's
 * clock (model_clock.c), with the peer and tag.  At the end of the build
 * the k-th send from rank A to rank B with tag T is matched to the k-th
 * receive at B from A with T (MPI's order: messages between two ranks on
 * one communicator and tag do not overtake one another).
 *
 * Then each rank's clock may move, within its measured error (half its
 * round trip; rank 0's is the reference and does not move), as little as
 * makes every receive of it end after its send started and every send of
 * it start before its receive ended: a few passes over the ranks, each
 * rank clamped into the interval its matched messages allow given the
 * others'.  What still ends before its send is counted (model.match),
 * never hidden.  Memory: 24 bytes per message, kept only when a view asks
 * (model_options.match_messages: --messages and the time axis).
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_build_int.h"

#define PASSES 16

static bool same_pair(const struct model_msg_end *x, const struct model_msg_end *y)
{
	return x->from == y->from && x->to == y->to && x->tag == y->tag;
}

static int cmp_end(const void *a, const void *b)
{
	const struct model_msg_end *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	if (x->recv != y->recv)
		return x->recv < y->recv ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

int model_mpi_note_end(struct build *b, int32_t from, int32_t to, int32_t tag, bool recv,
		       uint64_t time_ns, uint32_t thread)
{
	if (exp_grow(&b->ends, &b->cap_ends, b->nends, sizeof(*b->ends)))
		return -1;
	b->ends[b->nends++] = (struct model_msg_end){ from, to, tag, recv, thread, time_ns };
	return 0;
}

/* The rank of thread ti's process (-1: none). */
static int32_t rank_of(const struct model *m, uint32_t ti)
{
	return m->threads[ti].proc < m->nprocs ? m->procs[m->threads[ti].proc].rank : -1;
}

/* Move every rank's clock by fix[rank]: its processes' clocks, its kept
 * events, the pairs. */
static void apply(struct model *m, const int64_t *fix, int32_t nranks)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].rank >= 0 && m->procs[i].rank < nranks && m->procs[i].clock.measured)
			m->procs[i].clock.order_ns = fix[m->procs[i].rank];
	for (size_t i = 0; i < m->nevents; i++) {
		int32_t r = rank_of(m, m->events[i].thread);
		if (r >= 0 && r < nranks && fix[r])
			m->events[i].time_ns = (uint64_t)((int64_t)m->events[i].time_ns + fix[r]);
	}
	for (size_t i = 0; i < m->match.npairs; i++) {
		struct model_pair *p = &m->match.pairs[i];
		p->send_ns = (uint64_t)((int64_t)p->send_ns + fix[p->from]);
		p->recv_ns = (uint64_t)((int64_t)p->recv_ns + fix[p->to]);
	}
}

/* Pair the noted ends: per (from, to, tag), the k-th send with the k-th
 * receive.  Frees the ends. */
static int pair(struct build *b, struct model_match *mt)
{
	size_t cap = 0;

	qsort(b->ends, b->nends, sizeof(*b->ends), cmp_end);
	for (size_t i = 0; i < b->nends;) {
		size_t g = i, r = i;
		while (g < b->nends && same_pair(&b->ends[g], &b->ends[i]))
			g++;
		while (r < g && !b->ends[r].recv)
			r++;
		size_t nsend = r - i, nrecv = g - r, n = nsend < nrecv ? nsend : nrecv;
		mt->unmatched += nsend + nrecv - 2 * n;
		for (size_t k = 0; k < n; k++) {
			const struct model_msg_end *x = &b->ends[i + k], *y = &b->ends[r + k];
			if (exp_grow(&mt->pairs, &cap, mt->npairs, sizeof(*mt->pairs)))
				return -1;
			mt->pairs[mt->npairs++] = (struct model_pair){ x->from, x->to, x->thread, y->thread,
								       x->time_ns, y->time_ns };
		}
		i = g;
	}
	free(b->ends);
	b->ends = NULL;
	b->nends = b->cap_ends = 0;
	mt->matched = mt->npairs;
	return 0;
}

/* The corrections fix[1..nranks), each within +-err[r]: passes over the
 * pairs, every rank clamped into the interval its messages allow given the
 * others' corrections of the pass before; a rank whose messages disagree
 * (the interval is empty) keeps its correction. */
static void tighten(const struct model_match *mt, const uint64_t *err, int64_t *fix, int64_t *lo,
		    int64_t *hi, int32_t nranks)
{
	for (int pass = 0; pass < PASSES; pass++) {
		bool moved = false;
		for (int32_t r = 0; r < nranks; r++) {
			lo[r] = -(int64_t)err[r];
			hi[r] = (int64_t)err[r];
		}
		for (size_t k = 0; k < mt->npairs; k++) {
			const struct model_pair *p = &mt->pairs[k];
			if (p->from == p->to)
				continue;
			/* recv + fix[to] >= send + fix[from] */
			int64_t need = (int64_t)p->send_ns + fix[p->from] - (int64_t)p->recv_ns;
			if (need > lo[p->to])
				lo[p->to] = need;
			int64_t room = (int64_t)p->recv_ns + fix[p->to] - (int64_t)p->send_ns;
			if (room < hi[p->from])
				hi[p->from] = room;
		}
		for (int32_t r = 1; r < nranks; r++) {
			if (!err[r] || lo[r] > hi[r])
				continue;
			int64_t f = fix[r] < lo[r] ? lo[r] : fix[r] > hi[r] ? hi[r] : fix[r];
			moved |= f != fix[r];
			fix[r] = f;
		}
		if (!moved)
			break;
	}
}

void model_mpi_match(struct build *b)
{
	struct model *m = b->m;
	struct model_match *mt = &m->match;
	int32_t nranks = 0;

	if (!b->nends)
		return;
	for (size_t i = 0; i < b->nends; i++) {
		nranks = b->ends[i].from + 1 > nranks ? b->ends[i].from + 1 : nranks;
		nranks = b->ends[i].to + 1 > nranks ? b->ends[i].to + 1 : nranks;
	}
	uint64_t *err = calloc((size_t)nranks, sizeof(*err));
	int64_t *fix = calloc((size_t)nranks, 3 * sizeof(*fix));
	if (!err || !fix || pair(b, mt)) {
		mt->failed = true;
		goto out;
	}
	/* A rank's error: its clock's (rank 0's is 0: the reference). */
	for (size_t i = 0; i < m->nprocs; i++) {
		int32_t r = m->procs[i].rank;
		if (r > 0 && r < nranks && m->procs[i].clock.measured)
			err[r] = m->procs[i].clock.err_ns;
	}
	tighten(mt, err, fix, fix + nranks, fix + 2 * (size_t)nranks, nranks);
	for (int32_t r = 1; r < nranks; r++)
		if (llabs(fix[r]) > llabs(mt->order_max_ns)) {
			mt->order_max_ns = fix[r];
			mt->order_rank = r;
		}
	for (size_t k = 0; k < mt->npairs; k++) {
		const struct model_pair *p = &mt->pairs[k];
		int64_t early = (int64_t)p->send_ns + fix[p->from] - ((int64_t)p->recv_ns + fix[p->to]);
		if (early > 0) {
			mt->reversed++;
			mt->worst_ns = early > mt->worst_ns ? early : mt->worst_ns;
		}
	}
	apply(m, fix, nranks);
out:
	free(err);
	free(fix);
	free(b->ends);
	b->ends = NULL;
	b->nends = b->cap_ends = 0;
	if (!b->keep_pairs) {
		free(mt->pairs);
		mt->pairs = NULL;
		mt->npairs = 0;
	}
}
