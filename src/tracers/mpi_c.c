/* SPDX-License-Identifier: MIT
 *
 * mpi_c.c — libtally-mpi.so's interposers of MPI's C functions (the list is
 * format/exp_mpi_ops.h; docs/tracing.md says what each one is charged).
 *
 * Every wrapper has the same four steps: mpi_begin (is this call traced?),
 * the real call through the profiling interface (PMPI_), the description of
 * what it moved (mpi_trace.c), mpi_end (the record, with the stack of the
 * wrapper's caller).  The wrappers are compiled with frame pointers, which
 * TRACE_CALLER reads.  Called from any thread of an MPI program.
 */
#include <string.h>

#include "tracers/mpi_trace.h"

/* ---- initialization and end -------------------------------------------- */

TRACE_API int MPI_Init(int *argc, char ***argv)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_INIT);
	int rc = mpi_returned(&c, PMPI(Init)(argc, argv));
	if (c.on)
		mpi_after_init(rc);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_INIT_THREAD);
	int rc = mpi_returned(&c, PMPI(Init_thread)(argc, argv, required, provided));
	if (c.on)
		mpi_after_init(rc);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Finalize(void)
{
	struct mpi_call c;
	if (mpi_begin(&c, EXP_MPI_FINALIZE))
		mpi_before_finalize();
	int rc = mpi_returned(&c, PMPI(Finalize)());
	return mpi_end(&c, TRACE_CALLER(), rc);
}

/* ---- point to point ------------------------------------------------------ */

#define SEND_LIKE(Name, OP)                                                            \
	TRACE_API int MPI_##Name(const void *buf, int count, MPI_Datatype type, int dest,   \
				 int tag, MPI_Comm comm)                                     \
	{                                                                              \
		struct mpi_call c;                                                     \
		mpi_begin(&c, OP);                                                     \
		int rc = mpi_returned(&c, PMPI(Name)(buf, count, type, dest, tag, comm));  \
		mpi_sent(&c, comm, dest, tag, count, type);                            \
		return mpi_end(&c, TRACE_CALLER(), rc);                                \
	}

SEND_LIKE(Send, EXP_MPI_SEND)
SEND_LIKE(Ssend, EXP_MPI_SSEND)
SEND_LIKE(Bsend, EXP_MPI_BSEND)
SEND_LIKE(Rsend, EXP_MPI_RSEND)

/* A status to learn an MPI_ANY_SOURCE receive's sender from when the caller
 * ignores it. */
static MPI_Status *status_for(const struct mpi_call *c, int source, MPI_Status *given,
			      MPI_Status *own)
{
	return c->on && source == MPI_ANY_SOURCE && given == MPI_STATUS_IGNORE ? own : given;
}

TRACE_API int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag,
		       MPI_Comm comm, MPI_Status *status)
{
	struct mpi_call c;
	MPI_Status own;
	mpi_begin(&c, EXP_MPI_RECV);
	MPI_Status *st = status_for(&c, source, status, &own);
	int rc = mpi_returned(&c, PMPI(Recv)(buf, count, type, source, tag, comm, st));
	mpi_received(&c, comm, source, tag, count, type, st);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
			   void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
			   MPI_Comm comm, MPI_Status *status)
{
	struct mpi_call c;
	MPI_Status own;
	mpi_begin(&c, EXP_MPI_SENDRECV);
	MPI_Status *st = status_for(&c, source, status, &own);
	int rc = mpi_returned(&c, PMPI(Sendrecv)(sbuf, scount, stype, dest, stag, rbuf, rcount,
						 rtype, source, rtag, comm, st));
	mpi_sent(&c, comm, dest, stag, scount, stype);
	mpi_received(&c, comm, source, rtag, rcount, rtype, st);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag,
				   int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
	struct mpi_call c;
	MPI_Status own;
	mpi_begin(&c, EXP_MPI_SENDRECV_REPLACE);
	MPI_Status *st = status_for(&c, source, status, &own);
	int rc = mpi_returned(&c, PMPI(Sendrecv_replace)(buf, count, type, dest, stag, source,
							 rtag, comm, st));
	mpi_sent(&c, comm, dest, stag, count, type);
	mpi_received(&c, comm, source, rtag, count, type, st);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	struct mpi_call c;
	MPI_Status own;
	mpi_begin(&c, EXP_MPI_PROBE);
	MPI_Status *st = status_for(&c, source, status, &own);
	int rc = mpi_returned(&c, PMPI(Probe)(source, tag, comm, st));
	mpi_probed(&c, comm, source, st);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
	struct mpi_call c;
	MPI_Status own;
	mpi_begin(&c, EXP_MPI_IPROBE);
	MPI_Status *st = status_for(&c, source, status, &own);
	int rc = mpi_returned(&c, PMPI(Iprobe)(source, tag, comm, flag, st));
	mpi_probed(&c, comm, source, *flag ? st : MPI_STATUS_IGNORE);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

/* ---- nonblocking starts ------------------------------------------------- */

#define ISEND_LIKE(Name, OP)                                                           \
	TRACE_API int MPI_##Name(const void *buf, int count, MPI_Datatype type, int dest,   \
				 int tag, MPI_Comm comm, MPI_Request *req)                   \
	{                                                                              \
		struct mpi_call c;                                                     \
		mpi_begin(&c, OP);                                                     \
		int rc = mpi_returned(&c, PMPI(Name)(buf, count, type, dest, tag, comm, req)); \
		mpi_sent(&c, comm, dest, tag, count, type);                            \
		mpi_request_started(&c, *req, comm);                                   \
		return mpi_end(&c, TRACE_CALLER(), rc);                                \
	}

ISEND_LIKE(Isend, EXP_MPI_ISEND)
ISEND_LIKE(Issend, EXP_MPI_ISSEND)
ISEND_LIKE(Ibsend, EXP_MPI_IBSEND)
ISEND_LIKE(Irsend, EXP_MPI_IRSEND)

TRACE_API int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
			MPI_Comm comm, MPI_Request *req)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_IRECV);
	int rc = mpi_returned(&c, PMPI(Irecv)(buf, count, type, source, tag, comm, req));
	mpi_received(&c, comm, source, tag, count, type, MPI_STATUS_IGNORE);
	mpi_request_started(&c, *req, comm);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

/* ---- completions --------------------------------------------------------- */

TRACE_API int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	struct mpi_call c;
	MPI_Request was = *req;
	mpi_begin(&c, EXP_MPI_WAIT);
	int rc = mpi_returned(&c, PMPI(Wait)(req, status));
	mpi_request_done(&c, was, status);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	struct mpi_call c;
	MPI_Request was = *req;
	mpi_begin(&c, EXP_MPI_TEST);
	int rc = mpi_returned(&c, PMPI(Test)(req, flag, status));
	if (*flag)
		mpi_request_done(&c, was, status);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status *statuses)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_WAITALL);
	MPI_Request *was = mpi_requests_save(&c, n, reqs);
	int rc = mpi_returned(&c, PMPI(Waitall)(n, reqs, statuses));
	mpi_requests_done(&c, was, n, NULL, statuses);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_TESTALL);
	MPI_Request *was = mpi_requests_save(&c, n, reqs);
	int rc = mpi_returned(&c, PMPI(Testall)(n, reqs, flag, statuses));
	mpi_requests_done(&c, was, *flag ? n : 0, NULL, statuses);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_WAITANY);
	MPI_Request *was = mpi_requests_save(&c, n, reqs);
	int rc = mpi_returned(&c, PMPI(Waitany)(n, reqs, index, status));
	mpi_requests_done(&c, was, *index == MPI_UNDEFINED ? 0 : 1, index, status);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_TESTANY);
	MPI_Request *was = mpi_requests_save(&c, n, reqs);
	int rc = mpi_returned(&c, PMPI(Testany)(n, reqs, index, flag, status));
	mpi_requests_done(&c, was, *flag && *index != MPI_UNDEFINED ? 1 : 0, index, status);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

#define SOME_LIKE(Name, OP)                                                            \
	TRACE_API int MPI_##Name(int n, MPI_Request reqs[], int *outcount, int indices[],   \
				 MPI_Status statuses[])                                      \
	{                                                                              \
		struct mpi_call c;                                                     \
		mpi_begin(&c, OP);                                                     \
		MPI_Request *was = mpi_requests_save(&c, n, reqs);                     \
		int rc = mpi_returned(&c, PMPI(Name)(n, reqs, outcount, indices, statuses)); \
		mpi_requests_done(&c, was, *outcount == MPI_UNDEFINED ? 0 : *outcount, indices, \
				  statuses);                                           \
		return mpi_end(&c, TRACE_CALLER(), rc);                                \
	}

SOME_LIKE(Waitsome, EXP_MPI_WAITSOME)
SOME_LIKE(Testsome, EXP_MPI_TESTSOME)

/* ---- collectives --------------------------------------------------------- */

/* Calls that name no more than their communicator. */
#define COMM_ONLY(Name, OP, params, ...)                                               \
	TRACE_API int MPI_##Name params                                                \
	{                                                                              \
		struct mpi_call c;                                                     \
		mpi_begin(&c, OP);                                                     \
		int rc = mpi_returned(&c, PMPI(Name)(__VA_ARGS__));                    \
		mpi_comm(&c, comm);                                                    \
		return mpi_end(&c, TRACE_CALLER(), rc);                                \
	}

COMM_ONLY(Barrier, EXP_MPI_BARRIER, (MPI_Comm comm), comm)

/* What a member contributes when its send buffer may be MPI_IN_PLACE (its
 * part is then already in the receive buffer, described by rcount, rtype). */
static uint64_t part(const void *sbuf, int scount, MPI_Datatype stype, int rcount,
		     MPI_Datatype rtype)
{
	return sbuf == MPI_IN_PLACE ? mpi_bytes(rcount, rtype) : mpi_bytes(scount, stype);
}

TRACE_API int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_BCAST);
	int rc = mpi_returned(&c, PMPI(Bcast)(buf, count, type, root, comm));
	mpi_coll_bcast(&c, comm, root, c.on ? mpi_bytes(count, type) : 0);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
			 int root, MPI_Comm comm)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_REDUCE);
	int rc = mpi_returned(&c, PMPI(Reduce)(sbuf, rbuf, count, type, op, root, comm));
	mpi_coll_to_root(&c, comm, root, c.on ? mpi_bytes(count, type) : 0, count, NULL, type);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
			    MPI_Op op, MPI_Comm comm)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_ALLREDUCE);
	int rc = mpi_returned(&c, PMPI(Allreduce)(sbuf, rbuf, count, type, op, comm));
	mpi_coll_all(&c, comm, count, NULL, type, count, NULL, type);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
			 int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_GATHER);
	int rc = mpi_returned(&c, PMPI(Gather)(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
	mpi_coll_to_root(&c, comm, root, c.on ? part(sbuf, scount, stype, rcount, rtype) : 0,
			 rcount, NULL, rtype);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
			  const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
			  MPI_Comm comm)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_GATHERV);
	int rc = mpi_returned(&c, PMPI(Gatherv)(sbuf, scount, stype, rbuf, rcounts, displs, rtype,
						root, comm));
	mpi_coll_to_root(&c, comm, root, c.on && sbuf != MPI_IN_PLACE ? mpi_bytes(scount, stype) : 0,
			 0, rcounts, rtype);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
			  int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_SCATTER);
	int rc = mpi_returned(&c, PMPI(Scatter)(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
	mpi_coll_from_root(&c, comm, root, scount, NULL, stype,
			   c.on ? part(rbuf, rcount, rtype, scount, stype) : 0);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
			   MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
			   MPI_Comm comm)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_SCATTERV);
	int rc = mpi_returned(&c, PMPI(Scatterv)(sbuf, scounts, displs, stype, rbuf, rcount, rtype,
						 root, comm));
	mpi_coll_from_root(&c, comm, root, 0, scounts, stype,
			   c.on && rbuf != MPI_IN_PLACE ? mpi_bytes(rcount, rtype) : 0);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

/* Allgather and Alltoall: G parts of scount each way (the send side's is
 * the receive side's with MPI_IN_PLACE). */
#define ALL_LIKE(Name, OP)                                                             \
	TRACE_API int MPI_##Name(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, \
				 int rcount, MPI_Datatype rtype, MPI_Comm comm)              \
	{                                                                              \
		struct mpi_call c;                                                     \
		mpi_begin(&c, OP);                                                     \
		int rc = mpi_returned(&c, PMPI(Name)(sbuf, scount, stype, rbuf, rcount, rtype, comm)); \
		if (sbuf == MPI_IN_PLACE)                                              \
			mpi_coll_all(&c, comm, rcount, NULL, rtype, rcount, NULL, rtype);  \
		else                                                                   \
			mpi_coll_all(&c, comm, scount, NULL, stype, rcount, NULL, rtype);  \
		return mpi_end(&c, TRACE_CALLER(), rc);                                \
	}

ALL_LIKE(Allgather, EXP_MPI_ALLGATHER)
ALL_LIKE(Alltoall, EXP_MPI_ALLTOALL)

TRACE_API int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
			     const int rcounts[], const int displs[], MPI_Datatype rtype,
			     MPI_Comm comm)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_ALLGATHERV);
	int rc = mpi_returned(&c, PMPI(Allgatherv)(sbuf, scount, stype, rbuf, rcounts, displs,
						   rtype, comm));
	if (c.on && sbuf == MPI_IN_PLACE)
		mpi_coll_all(&c, comm, rcounts[mpi_comm_rank(comm)], NULL, rtype, 0, rcounts, rtype);
	else
		mpi_coll_all(&c, comm, scount, NULL, stype, 0, rcounts, rtype);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
			    MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
			    MPI_Datatype rtype, MPI_Comm comm)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_ALLTOALLV);
	int rc = mpi_returned(&c, PMPI(Alltoallv)(sbuf, scounts, sdispls, stype, rbuf, rcounts,
						  rdispls, rtype, comm));
	if (sbuf == MPI_IN_PLACE)
		mpi_coll_all(&c, comm, 0, rcounts, rtype, 0, rcounts, rtype);
	else
		mpi_coll_all(&c, comm, 0, scounts, stype, 0, rcounts, rtype);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
				 MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_REDUCE_SCATTER);
	int rc = mpi_returned(&c, PMPI(Reduce_scatter)(sbuf, rbuf, rcounts, type, op, comm));
	mpi_coll_all(&c, comm, 0, rcounts, type, 0, rcounts, type);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
				       MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_REDUCE_SCATTER_BLOCK);
	int rc = mpi_returned(&c, PMPI(Reduce_scatter_block)(sbuf, rbuf, rcount, type, op, comm));
	mpi_coll_all(&c, comm, rcount, NULL, type, rcount, NULL, type);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

#define SCAN_LIKE(Name, OP)                                                            \
	TRACE_API int MPI_##Name(const void *sbuf, void *rbuf, int count, MPI_Datatype type, \
				 MPI_Op op, MPI_Comm comm)                                   \
	{                                                                              \
		struct mpi_call c;                                                     \
		mpi_begin(&c, OP);                                                     \
		int rc = mpi_returned(&c, PMPI(Name)(sbuf, rbuf, count, type, op, comm));  \
		mpi_coll_one(&c, comm, c.on ? mpi_bytes(count, type) : 0);             \
		return mpi_end(&c, TRACE_CALLER(), rc);                                \
	}

SCAN_LIKE(Scan, EXP_MPI_SCAN)
SCAN_LIKE(Exscan, EXP_MPI_EXSCAN)

/* ---- nonblocking collectives: the bytes at the start, as for MPI_Isend -- */

TRACE_API int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_IBARRIER);
	int rc = mpi_returned(&c, PMPI(Ibarrier)(comm, req));
	mpi_comm(&c, comm);
	mpi_request_started(&c, *req, comm);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
			 MPI_Request *req)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_IBCAST);
	int rc = mpi_returned(&c, PMPI(Ibcast)(buf, count, type, root, comm, req));
	mpi_coll_bcast(&c, comm, root, c.on ? mpi_bytes(count, type) : 0);
	mpi_request_started(&c, *req, comm);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
			  int root, MPI_Comm comm, MPI_Request *req)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_IREDUCE);
	int rc = mpi_returned(&c, PMPI(Ireduce)(sbuf, rbuf, count, type, op, root, comm, req));
	mpi_coll_to_root(&c, comm, root, c.on ? mpi_bytes(count, type) : 0, count, NULL, type);
	mpi_request_started(&c, *req, comm);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

TRACE_API int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
			     MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_IALLREDUCE);
	int rc = mpi_returned(&c, PMPI(Iallreduce)(sbuf, rbuf, count, type, op, comm, req));
	mpi_coll_all(&c, comm, count, NULL, type, count, NULL, type);
	mpi_request_started(&c, *req, comm);
	return mpi_end(&c, TRACE_CALLER(), rc);
}

/* ---- communicators -------------------------------------------------------- */

COMM_ONLY(Comm_split, EXP_MPI_COMM_SPLIT, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm),
	  comm, color, key, newcomm)
COMM_ONLY(Comm_dup, EXP_MPI_COMM_DUP, (MPI_Comm comm, MPI_Comm *newcomm), comm, newcomm)
COMM_ONLY(Comm_create, EXP_MPI_COMM_CREATE, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm),
	  comm, group, newcomm)


TRACE_API int MPI_Comm_free(MPI_Comm *comm)
{
	struct mpi_call c;
	mpi_begin(&c, EXP_MPI_COMM_FREE);
	mpi_comm(&c, *comm);
	mpi_comm_forget(*comm);
	int rc = mpi_returned(&c, PMPI(Comm_free)(comm));
	return mpi_end(&c, TRACE_CALLER(), rc);
}
