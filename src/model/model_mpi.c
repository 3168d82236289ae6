/* SPDX-License-Identifier: MIT
 *
 * model_mpi.c — traced MPI calls (`tally record -m`): their time, count and
 * bytes by calling stack, the MPI function as the leaf; and the job's
 * point-to-point traffic from rank to rank (model_build_int.h lists the
 * neighbours).
 *
 * A message goes from the process's rank to the record's dest when the call
 * is a send (exp_mpi_op_is_send) to one peer: the sender knows the bytes
 * exactly, where a receive only knows its buffer.  Collectives are in the
 * metrics, not in the messages (which member sends what to whom inside an
 * MPI_Allreduce is the library's choice).
 */
#include <stdlib.h>

#include "format/exp_mpi_ops.h"
#include "model/model_build_int.h"

static int add_msg(struct build *b, int32_t from, int32_t to, uint64_t bytes, uint64_t count)
{
	struct model *m = b->m;
	uint64_t key = ((uint64_t)(uint32_t)from << 32 | (uint32_t)to) + 1;
	bool inserted;
	uint64_t *v = model_map_put(&b->msg_of, key, 0, &inserted);

	if (!v)
		return -1;
	if (inserted) {
		if (exp_grow(&m->msgs, &b->cap_msgs, m->nmsgs, sizeof(*m->msgs)))
			return -1;
		m->msgs[m->nmsgs] = (struct model_msg){ from, to, 0, 0 };
		*model_map_get(&b->msg_of, key) = ++m->nmsgs;
		v = model_map_get(&b->msg_of, key);
	}
	m->msgs[*v - 1].bytes += bytes;
	m->msgs[*v - 1].count += count;
	return 0;
}

/* Is op's record the end of receives: a blocking receive, or a call that
 * completed requests (an MPI_Irecv's receive ends there)? */
static bool ends_receives(const struct exp_mpi *r)
{
	switch (r->op) {
	case EXP_MPI_RECV: case EXP_MPI_SENDRECV: case EXP_MPI_SENDRECV_REPLACE:
		return true;
	case EXP_MPI_WAIT: case EXP_MPI_WAITALL: case EXP_MPI_WAITANY: case EXP_MPI_WAITSOME:
	case EXP_MPI_TEST: case EXP_MPI_TESTALL: case EXP_MPI_TESTANY: case EXP_MPI_TESTSOME:
		return r->flags & EXP_MPI_COMPLETES;
	default:
		return false;
	}
}

/* The record's message ends, for matching (model_mpi_match.c): a send to
 * one peer at the call's start, receives from one peer at its end. */
static int note_ends(struct build *b, struct proc_ctx *c, const struct exp_mpi *r, int32_t rank)
{
	const struct model_clock *k = &b->m->procs[c->index].clock;
	struct model_thread *th = NULL;

	if (exp_mpi_op_is_send(r->op) && r->dest >= 0 && r->sends == 1 && r->op != EXP_MPI_OP_NONE) {
		if (!(th = model_thread_for(b, c, r->tid, r->time_ns)) ||
		    model_mpi_note_end(b, rank, r->dest, r->tag, false, model_clock_align(k, r->time_ns),
				       (uint32_t)(th - b->m->threads)))
			return -1;
	}
	if (ends_receives(r) && r->source >= 0 && r->recvs) {
		if (!th && !(th = model_thread_for(b, c, r->tid, r->time_ns)))
			return -1;
		for (uint32_t i = 0; i < r->recvs; i++)
			if (model_mpi_note_end(b, r->source, rank, r->tag, true,
					       model_clock_align(k, r->time_ns + r->dur_ns),
					       (uint32_t)(th - b->m->threads)))
				return -1;
	}
	return 0;
}

int model_build_mpi(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;
	int32_t rank = b->m->procs[c->index].rank;

	for (size_t i = 0; i < p->nmpi; i++) {
		const struct exp_mpi *r = &p->mpi[i];
		if (!model_keep(c, o, r->tid, r->time_ns))
			continue;
		if (model_add_mpi(b, c, o, r->tid, r->time_ns, r->stack_id, r->op, MODEL_MPI_TIME,
				  r->dur_ns) ||
		    model_add_mpi(b, c, o, r->tid, r->time_ns, r->stack_id, r->op, MODEL_MPI_COUNT, 1) ||
		    (r->bytes_sent && model_add_mpi(b, c, o, r->tid, r->time_ns, r->stack_id, r->op,
						    MODEL_MPI_BYTES_SENT, r->bytes_sent)) ||
		    (r->bytes_recv && model_add_mpi(b, c, o, r->tid, r->time_ns, r->stack_id, r->op,
						    MODEL_MPI_BYTES_RECV, r->bytes_recv)))
			return -1;
		if (r->op < EXP_MPI_OP_COUNT_)
			b->m->procs[c->index].mpi_op_ns[r->op] += r->dur_ns;
		if (rank >= 0 && r->dest >= 0 && r->sends && exp_mpi_op_is_send(r->op) &&
		    add_msg(b, rank, r->dest, r->bytes_sent, r->sends))
			return -1;
		if (rank >= 0 && b->match && note_ends(b, c, r, rank))
			return -1;
	}
	return 0;
}

static int cmp_msg(const void *a, const void *b)
{
	const struct model_msg *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

void model_mpi_sort(struct model *m)
{
	if (m->nmsgs)
		qsort(m->msgs, m->nmsgs, sizeof(*m->msgs), cmp_msg);
}
