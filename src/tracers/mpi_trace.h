/* SPDX-License-Identifier: MIT
 *
 * mpi_trace.h — what the files of libtally-mpi.so (`tally record -m`) share.
 *
 * The tracer interposes MPI's C functions (mpi_c.c) and its Fortran
 * bindings (mpi_fortran.c: Open MPI's Fortran wrappers call PMPI_* directly,
 * so the C interposers never see a Fortran program's calls).  Each wrapper
 * calls the real function through the profiling interface, then describes
 * the call to mpi_trace.c, which writes one EXP_REC_MPI record with the
 * caller's stack.
 *
 * The library does not link libmpi: it is preloaded into every process of
 * the job, the launcher and shells included: mpi_real.h finds the PMPI
 * functions and makes mpi.h's constants safe where there is no MPI.
 */
#ifndef TALLY_MPI_TRACE_H
#define TALLY_MPI_TRACE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "format/exp_mpi_ops.h"
#include "tracers/mpi_real.h"
#include "tracers/tracer.h"

/* One traced call, filled in by the wrapper around the real call. */
struct mpi_call {
	struct exp_mpi r;          /* the record (op, flags, bytes, peers, ...) */
	bool on;                   /* tracing this call */
};

/* Start tracing a call of `op`: false if MPI tracing is off, or the thread
 * is already inside a traced MPI call (an MPI library whose Fortran or C++
 * layer calls the C functions): the wrapper then just calls the real one. */
bool mpi_begin(struct mpi_call *c, enum exp_mpi_op op);

/* The real call returned `rc`: its duration ends now.  Returns rc. */
static inline int mpi_returned(struct mpi_call *c, int rc)
{
	if (c->on) {
		c->r.dur_ns = tally__now() - c->r.time_ns;
		if (rc != MPI_SUCCESS)
			c->r.flags |= EXP_MPI_FAILED;
	}
	return rc;
}

/* Write the call's record with the stack of `at` and return rc.  Every
 * function below does nothing when the call is not traced (c->on false). */
int mpi_end(struct mpi_call *c, struct trace_caller at, int rc);

/* ---- describing a call ----------------------------------------------- */

/* Bytes of `count` elements of `type` (0 if either is invalid). */
uint64_t mpi_bytes(int count, MPI_Datatype type);
/* MPI_COMM_WORLD rank of `rank` in `comm` (remote group of an
 * intercommunicator); EXP_MPI_PEER_* for MPI_PROC_NULL, MPI_ANY_SOURCE, or
 * when it cannot be translated (counted: mpi.unknown-peers). */
int32_t mpi_world_rank(MPI_Comm comm, int rank);
/* Note the communicator (its id in the record; an EXP_REC_MPI_COMM record
 * the first time). */
void mpi_comm(struct mpi_call *c, MPI_Comm comm);
/* A communicator is being freed: forget it (its handle may be reused). */
void mpi_comm_forget(MPI_Comm comm);

/* A point-to-point send of count x type to `dest`, and a receive into a
 * buffer of count x type from `source`; `st` (may be NULL) resolves
 * MPI_ANY_SOURCE and MPI_ANY_TAG. */
void mpi_sent(struct mpi_call *c, MPI_Comm comm, int dest, int tag, int count, MPI_Datatype type);
void mpi_received(struct mpi_call *c, MPI_Comm comm, int source, int tag, int count,
		  MPI_Datatype type, const MPI_Status *st);

/* A probe: the message found (status, when there is one) or looked for. */
void mpi_probed(struct mpi_call *c, MPI_Comm comm, int source, const MPI_Status *st);

/* Collectives, by the Sun collector's model (docs/tracing.md): a root
 * sends to (or receives from) each of the G members, itself included.
 * Counts are per member unless an array of them is given (v-variants,
 * significant where the MPI standard says so: at the root, or everywhere).
 *   bcast:     the root sends G x n; everyone receives n
 *   to_root:   everyone sends `part`; the root receives G x rcount
 *              (or the sum of rcounts) of rtype (reduce, gather)
 *   from_root: the root sends G x scount (or the sum) of stype; everyone
 *              receives `part` (scatter)
 *   all:       everyone sends G x scount (or the sum) and receives G x
 *              rcount (or the sum) (allreduce, allgather, alltoall,
 *              reduce_scatter)
 *   one:       everyone sends n and receives n (scan, exscan) */
void mpi_coll_bcast(struct mpi_call *c, MPI_Comm comm, int root, uint64_t n);
void mpi_coll_to_root(struct mpi_call *c, MPI_Comm comm, int root, uint64_t part, int rcount,
		      const int *rcounts, MPI_Datatype rtype);
void mpi_coll_from_root(struct mpi_call *c, MPI_Comm comm, int root, int scount,
			const int *scounts, MPI_Datatype stype, uint64_t part);
void mpi_coll_all(struct mpi_call *c, MPI_Comm comm, int scount, const int *scounts,
		  MPI_Datatype stype, int rcount, const int *rcounts, MPI_Datatype rtype);
void mpi_coll_one(struct mpi_call *c, MPI_Comm comm, uint64_t n);
/* This process's rank in comm (-1 if it cannot be known). */
int mpi_comm_rank(MPI_Comm comm);

/* ---- nonblocking requests ------------------------------------------- */

/* Remember what request `req` (just started on `comm` by the call `c`)
 * will do, so that the call completing it can name its peer. */
void mpi_request_started(const struct mpi_call *c, MPI_Request req, MPI_Comm comm);
/* Request `req` (its handle before the completing call) was completed by
 * `c`: add its peer and kind to c (counts mpi.untracked-requests if its
 * start was not seen). */
void mpi_request_done(struct mpi_call *c, MPI_Request req, const MPI_Status *st);

/* The handles of reqs[0..n) before a call that may complete them (which
 * sets them to MPI_REQUEST_NULL): a per-thread copy, NULL when not traced. */
MPI_Request *mpi_requests_save(struct mpi_call *c, int n, const MPI_Request *reqs);
/* `n` of the saved requests completed: was[indices[k]] (was[k] without
 * indices), with status statuses[k] (may be MPI_STATUSES_IGNORE). */
void mpi_requests_done(struct mpi_call *c, const MPI_Request *was, int n, const int *indices,
		       const MPI_Status *statuses);

/* ---- initialization -------------------------------------------------- */

/* MPI_Init / MPI_Init_thread returned `rc`: log this process's rank, the
 * job's size and the library, and when initialization ended. */
void mpi_after_init(int rc);
/* MPI_Finalize is about to be called. */
void mpi_before_finalize(void);

#endif
