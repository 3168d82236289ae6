/* SPDX-License-Identifier: MIT
 *
 * mpi_fortran.c — libtally-mpi.so's interposers of MPI's Fortran bindings.
 *
 * Open MPI 4's Fortran wrappers (libmpi_mpifh: mpi_send_, reached from
 * mpif.h and `use mpi`) call PMPI_Send, not MPI_Send; those of `use mpi_f08`
 * (mpi_send_f08_) call the mpifh implementation directly.  Interposing the
 * C functions therefore sees no call of a Fortran program, so the Fortran
 * names are interposed too: mpi_NAME_ (gfortran's and ifort's naming) and
 * mpi_NAME_f08_, each calling its real counterpart pmpi_NAME_ or
 * pmpi_NAME_f08_.  Both take every argument by reference, handles as
 * integers (an f08 TYPE(MPI_Comm) is one integer), so one body serves both:
 * it converts the handles to C (PMPI_Comm_f2c ...) and describes the call
 * with the same functions as the C wrappers.  An f08 `ierror` is optional
 * (NULL when absent).
 *
 * Not resolved in Fortran: the senders of MPI_ANY_SOURCE receives completed
 * by the array calls (waitall, waitsome, testall, testsome), whose statuses
 * are Fortran arrays.
 */
#include <string.h>

#include "tracers/mpi_trace.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER counts are read as C int arrays");

#define FREAL(cache, sym) ((cache) ? (cache) : ((cache) = mpi_resolve(sym)))

/* Declarations and definitions of mpi_NAME_ and mpi_NAME_f08_ with
 * parameters PARAMS: each calls BODY(real, OP, caller, ARGS...). */
#define FORTRAN(name, type, body, op, params, ...)                               \
	TRACE_API void mpi_##name##_ params;                                     \
	TRACE_API void mpi_##name##_f08_ params;                                 \
	TRACE_API void mpi_##name##_ params                                      \
	{                                                                        \
		static type *real;                                               \
		body(FREAL(real, "pmpi_" #name "_"), op, TRACE_CALLER(), __VA_ARGS__); \
	}                                                                        \
	TRACE_API void mpi_##name##_f08_ params                                  \
	{                                                                        \
		static type *real;                                               \
		body(FREAL(real, "pmpi_" #name "_f08_"), op, TRACE_CALLER(), __VA_ARGS__); \
	}

typedef MPI_Fint F;                    /* a Fortran INTEGER */

/* The bodies are inlined into both entry points, so that the frame in a
 * stack sampled inside MPI is mpi_NAME_'s, which the analyzer names
 * MPI_Name (a tail call into an out-of-line body would leave no such frame). */
#define BODY static inline __attribute__((always_inline))

static bool begin(struct mpi_call *c, enum exp_mpi_op op)
{
	if (!mpi_begin(c, op))
		return false;
	c->r.flags |= EXP_MPI_FORTRAN;
	return true;
}

static int returned(struct mpi_call *c, const F *ierr)
{
	return mpi_returned(c, ierr ? *ierr : MPI_SUCCESS);
}

static MPI_Comm comm_of(const F *comm)
{
	return PMPI(Comm_f2c)(*comm);
}

static MPI_Datatype type_of(const F *type)
{
	return PMPI(Type_f2c)(*type);
}

/* A Fortran status (MPI_STATUS_IGNORE is a sentinel address) in C, or NULL. */
static const MPI_Status *status_of(const F *fst, MPI_Status *cst)
{
	if (!fst || fst == MPI_F_STATUS_IGNORE || PMPI(Status_f2c)(fst, cst) != MPI_SUCCESS)
		return NULL;
	return cst;
}

/* Is a buffer argument Fortran's MPI_IN_PLACE (a sentinel common block)? */
static bool in_place(const void *buf)
{
	static void *sentinel;

	return buf && buf == FREAL(sentinel, "mpi_fortran_in_place_");
}

/* ---- initialization and end ---------------------------------------------- */

typedef void init_fn(F *ierr);
typedef void init_thread_fn(F *required, F *provided, F *ierr);
typedef void finalize_fn(F *ierr);

BODY void f_init(init_fn *real, enum exp_mpi_op op, struct trace_caller at, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(ierr);
	int rc = returned(&c, ierr);
	if (c.on)
		mpi_after_init(rc);
	mpi_end(&c, at, rc);
}

BODY void f_init_thread(init_thread_fn *real, enum exp_mpi_op op, struct trace_caller at,
			  F *required, F *provided, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(required, provided, ierr);
	int rc = returned(&c, ierr);
	if (c.on)
		mpi_after_init(rc);
	mpi_end(&c, at, rc);
}

BODY void f_finalize(finalize_fn *real, enum exp_mpi_op op, struct trace_caller at, F *ierr)
{
	struct mpi_call c;
	if (begin(&c, op))
		mpi_before_finalize();
	real(ierr);
	mpi_end(&c, at, returned(&c, ierr));
}

FORTRAN(init, init_fn, f_init, EXP_MPI_INIT, (F *ierr), ierr)
FORTRAN(init_thread, init_thread_fn, f_init_thread, EXP_MPI_INIT_THREAD,
	(F *required, F *provided, F *ierr), required, provided, ierr)
FORTRAN(finalize, finalize_fn, f_finalize, EXP_MPI_FINALIZE, (F *ierr), ierr)

/* ---- point to point ---------------------------------------------------------- */

typedef void send_fn(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr);
typedef void recv_fn(void *buf, F *count, F *type, F *source, F *tag, F *comm, F *status, F *ierr);
typedef void sendrecv_fn(void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf,
			 F *rcount, F *rtype, F *source, F *rtag, F *comm, F *status, F *ierr);
typedef void sendrecv_replace_fn(void *buf, F *count, F *type, F *dest, F *stag, F *source,
				 F *rtag, F *comm, F *status, F *ierr);
typedef void probe_fn(F *source, F *tag, F *comm, F *status, F *ierr);
typedef void iprobe_fn(F *source, F *tag, F *comm, F *flag, F *status, F *ierr);
typedef void isend_fn(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr);

BODY void f_send(send_fn *real, enum exp_mpi_op op, struct trace_caller at, void *buf, F *count,
		   F *type, F *dest, F *tag, F *comm, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(buf, count, type, dest, tag, comm, ierr);
	int rc = returned(&c, ierr);
	if (c.on)
		mpi_sent(&c, comm_of(comm), *dest, *tag, *count, type_of(type));
	mpi_end(&c, at, rc);
}

BODY void f_recv(recv_fn *real, enum exp_mpi_op op, struct trace_caller at, void *buf, F *count,
		   F *type, F *source, F *tag, F *comm, F *status, F *ierr)
{
	struct mpi_call c;
	MPI_Status cst;
	begin(&c, op);
	real(buf, count, type, source, tag, comm, status, ierr);
	int rc = returned(&c, ierr);
	if (c.on)
		mpi_received(&c, comm_of(comm), *source, *tag, *count, type_of(type),
			     status_of(status, &cst));
	mpi_end(&c, at, rc);
}

BODY void f_sendrecv(sendrecv_fn *real, enum exp_mpi_op op, struct trace_caller at, void *sbuf,
		       F *scount, F *stype, F *dest, F *stag, void *rbuf, F *rcount, F *rtype,
		       F *source, F *rtag, F *comm, F *status, F *ierr)
{
	struct mpi_call c;
	MPI_Status cst;
	begin(&c, op);
	real(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status, ierr);
	int rc = returned(&c, ierr);
	if (c.on) {
		MPI_Comm cc = comm_of(comm);
		mpi_sent(&c, cc, *dest, *stag, *scount, type_of(stype));
		mpi_received(&c, cc, *source, *rtag, *rcount, type_of(rtype), status_of(status, &cst));
	}
	mpi_end(&c, at, rc);
}

BODY void f_sendrecv_replace(sendrecv_replace_fn *real, enum exp_mpi_op op,
			       struct trace_caller at, void *buf, F *count, F *type, F *dest,
			       F *stag, F *source, F *rtag, F *comm, F *status, F *ierr)
{
	struct mpi_call c;
	MPI_Status cst;
	begin(&c, op);
	real(buf, count, type, dest, stag, source, rtag, comm, status, ierr);
	int rc = returned(&c, ierr);
	if (c.on) {
		MPI_Comm cc = comm_of(comm);
		mpi_sent(&c, cc, *dest, *stag, *count, type_of(type));
		mpi_received(&c, cc, *source, *rtag, *count, type_of(type), status_of(status, &cst));
	}
	mpi_end(&c, at, rc);
}

BODY void f_probe(probe_fn *real, enum exp_mpi_op op, struct trace_caller at, F *source, F *tag,
		    F *comm, F *status, F *ierr)
{
	struct mpi_call c;
	MPI_Status cst;
	begin(&c, op);
	real(source, tag, comm, status, ierr);
	int rc = returned(&c, ierr);
	if (c.on)
		mpi_probed(&c, comm_of(comm), *source, status_of(status, &cst));
	mpi_end(&c, at, rc);
}

BODY void f_iprobe(iprobe_fn *real, enum exp_mpi_op op, struct trace_caller at, F *source,
		     F *tag, F *comm, F *flag, F *status, F *ierr)
{
	struct mpi_call c;
	MPI_Status cst;
	begin(&c, op);
	real(source, tag, comm, flag, status, ierr);
	int rc = returned(&c, ierr);
	if (c.on)
		mpi_probed(&c, comm_of(comm), *source, *flag ? status_of(status, &cst) : NULL);
	mpi_end(&c, at, rc);
}

BODY void f_isend(isend_fn *real, enum exp_mpi_op op, struct trace_caller at, void *buf,
		    F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(buf, count, type, dest, tag, comm, req, ierr);
	int rc = returned(&c, ierr);
	if (c.on) {
		MPI_Comm cc = comm_of(comm);
		if (op == EXP_MPI_IRECV)
			mpi_received(&c, cc, *dest, *tag, *count, type_of(type), NULL);
		else
			mpi_sent(&c, cc, *dest, *tag, *count, type_of(type));
		mpi_request_started(&c, PMPI(Request_f2c)(*req), cc);
	}
	mpi_end(&c, at, rc);
}

#define SEND_PARAMS (void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
FORTRAN(send, send_fn, f_send, EXP_MPI_SEND, SEND_PARAMS, buf, count, type, dest, tag, comm, ierr)
FORTRAN(ssend, send_fn, f_send, EXP_MPI_SSEND, SEND_PARAMS, buf, count, type, dest, tag, comm, ierr)
FORTRAN(bsend, send_fn, f_send, EXP_MPI_BSEND, SEND_PARAMS, buf, count, type, dest, tag, comm, ierr)
FORTRAN(rsend, send_fn, f_send, EXP_MPI_RSEND, SEND_PARAMS, buf, count, type, dest, tag, comm, ierr)
FORTRAN(recv, recv_fn, f_recv, EXP_MPI_RECV,
	(void *buf, F *count, F *type, F *source, F *tag, F *comm, F *status, F *ierr),
	buf, count, type, source, tag, comm, status, ierr)
FORTRAN(sendrecv, sendrecv_fn, f_sendrecv, EXP_MPI_SENDRECV,
	(void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf, F *rcount, F *rtype,
	 F *source, F *rtag, F *comm, F *status, F *ierr),
	sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status, ierr)
FORTRAN(sendrecv_replace, sendrecv_replace_fn, f_sendrecv_replace, EXP_MPI_SENDRECV_REPLACE,
	(void *buf, F *count, F *type, F *dest, F *stag, F *source, F *rtag, F *comm, F *status,
	 F *ierr),
	buf, count, type, dest, stag, source, rtag, comm, status, ierr)
FORTRAN(probe, probe_fn, f_probe, EXP_MPI_PROBE, (F *source, F *tag, F *comm, F *status, F *ierr),
	source, tag, comm, status, ierr)
FORTRAN(iprobe, iprobe_fn, f_iprobe, EXP_MPI_IPROBE,
	(F *source, F *tag, F *comm, F *flag, F *status, F *ierr), source, tag, comm, flag, status,
	ierr)
#define ISEND_PARAMS (void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
FORTRAN(isend, isend_fn, f_isend, EXP_MPI_ISEND, ISEND_PARAMS, buf, count, type, dest, tag, comm,
	req, ierr)
FORTRAN(issend, isend_fn, f_isend, EXP_MPI_ISSEND, ISEND_PARAMS, buf, count, type, dest, tag,
	comm, req, ierr)
FORTRAN(ibsend, isend_fn, f_isend, EXP_MPI_IBSEND, ISEND_PARAMS, buf, count, type, dest, tag,
	comm, req, ierr)
FORTRAN(irsend, isend_fn, f_isend, EXP_MPI_IRSEND, ISEND_PARAMS, buf, count, type, dest, tag,
	comm, req, ierr)
FORTRAN(irecv, isend_fn, f_isend, EXP_MPI_IRECV, ISEND_PARAMS, buf, count, type, dest, tag, comm,
	req, ierr)

/* ---- completions --------------------------------------------------------------- */

typedef void wait_fn(F *req, F *status, F *ierr);
typedef void test_fn(F *req, F *flag, F *status, F *ierr);
typedef void waitall_fn(F *n, F *reqs, F *statuses, F *ierr);
typedef void testall_fn(F *n, F *reqs, F *flag, F *statuses, F *ierr);
typedef void waitany_fn(F *n, F *reqs, F *index, F *status, F *ierr);
typedef void testany_fn(F *n, F *reqs, F *index, F *flag, F *status, F *ierr);
typedef void waitsome_fn(F *n, F *reqs, F *outcount, F *indices, F *statuses, F *ierr);

/* The C handles of n Fortran requests, before a call that completes them. */
static MPI_Request *save(struct mpi_call *c, const F *n, const F *reqs)
{
	MPI_Request *was = mpi_requests_save(c, *n, NULL);

	for (int i = 0; was && i < *n; i++)
		was[i] = PMPI(Request_f2c)(reqs[i]);
	return was;
}

BODY void f_wait(wait_fn *real, enum exp_mpi_op op, struct trace_caller at, F *req, F *status,
		   F *ierr)
{
	struct mpi_call c;
	MPI_Status cst;
	begin(&c, op);
	MPI_Request was = c.on ? PMPI(Request_f2c)(*req) : MPI_REQUEST_NULL;
	real(req, status, ierr);
	int rc = returned(&c, ierr);
	mpi_request_done(&c, was, c.on ? status_of(status, &cst) : NULL);
	mpi_end(&c, at, rc);
}

BODY void f_test(test_fn *real, enum exp_mpi_op op, struct trace_caller at, F *req, F *flag,
		   F *status, F *ierr)
{
	struct mpi_call c;
	MPI_Status cst;
	begin(&c, op);
	MPI_Request was = c.on ? PMPI(Request_f2c)(*req) : MPI_REQUEST_NULL;
	real(req, flag, status, ierr);
	int rc = returned(&c, ierr);
	if (c.on && *flag)
		mpi_request_done(&c, was, status_of(status, &cst));
	mpi_end(&c, at, rc);
}

BODY void f_waitall(waitall_fn *real, enum exp_mpi_op op, struct trace_caller at, F *n, F *reqs,
		      F *statuses, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	MPI_Request *was = save(&c, n, reqs);
	real(n, reqs, statuses, ierr);
	int rc = returned(&c, ierr);
	mpi_requests_done(&c, was, *n, NULL, MPI_STATUSES_IGNORE);
	mpi_end(&c, at, rc);
}

BODY void f_testall(testall_fn *real, enum exp_mpi_op op, struct trace_caller at, F *n, F *reqs,
		      F *flag, F *statuses, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	MPI_Request *was = save(&c, n, reqs);
	real(n, reqs, flag, statuses, ierr);
	int rc = returned(&c, ierr);
	mpi_requests_done(&c, was, *flag ? *n : 0, NULL, MPI_STATUSES_IGNORE);
	mpi_end(&c, at, rc);
}

/* Which request a waitany or testany completed: Fortran indices count from 1. */
static void one_done(struct mpi_call *c, const MPI_Request *was, F index, const F *status)
{
	MPI_Status cst;

	if (c->on && was && index != MPI_UNDEFINED && index >= 1)
		mpi_request_done(c, was[index - 1], status_of(status, &cst));
}

BODY void f_waitany(waitany_fn *real, enum exp_mpi_op op, struct trace_caller at, F *n, F *reqs,
		      F *index, F *status, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	MPI_Request *was = save(&c, n, reqs);
	real(n, reqs, index, status, ierr);
	int rc = returned(&c, ierr);
	one_done(&c, was, *index, status);
	mpi_end(&c, at, rc);
}

BODY void f_testany(testany_fn *real, enum exp_mpi_op op, struct trace_caller at, F *n, F *reqs,
		      F *index, F *flag, F *status, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	MPI_Request *was = save(&c, n, reqs);
	real(n, reqs, index, flag, status, ierr);
	int rc = returned(&c, ierr);
	if (*flag)
		one_done(&c, was, *index, status);
	mpi_end(&c, at, rc);
}

BODY void f_waitsome(waitsome_fn *real, enum exp_mpi_op op, struct trace_caller at, F *n,
		       F *reqs, F *outcount, F *indices, F *statuses, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	MPI_Request *was = save(&c, n, reqs);
	real(n, reqs, outcount, indices, statuses, ierr);
	int rc = returned(&c, ierr);
	for (int k = 0; c.on && was && *outcount != MPI_UNDEFINED && k < *outcount; k++)
		if (indices[k] >= 1 && indices[k] <= *n)
			mpi_request_done(&c, was[indices[k] - 1], NULL);
	mpi_end(&c, at, rc);
}

FORTRAN(wait, wait_fn, f_wait, EXP_MPI_WAIT, (F *req, F *status, F *ierr), req, status, ierr)
FORTRAN(test, test_fn, f_test, EXP_MPI_TEST, (F *req, F *flag, F *status, F *ierr), req, flag,
	status, ierr)
FORTRAN(waitall, waitall_fn, f_waitall, EXP_MPI_WAITALL, (F *n, F *reqs, F *statuses, F *ierr), n,
	reqs, statuses, ierr)
FORTRAN(testall, testall_fn, f_testall, EXP_MPI_TESTALL,
	(F *n, F *reqs, F *flag, F *statuses, F *ierr), n, reqs, flag, statuses, ierr)
FORTRAN(waitany, waitany_fn, f_waitany, EXP_MPI_WAITANY,
	(F *n, F *reqs, F *index, F *status, F *ierr), n, reqs, index, status, ierr)
FORTRAN(testany, testany_fn, f_testany, EXP_MPI_TESTANY,
	(F *n, F *reqs, F *index, F *flag, F *status, F *ierr), n, reqs, index, flag, status, ierr)
FORTRAN(waitsome, waitsome_fn, f_waitsome, EXP_MPI_WAITSOME,
	(F *n, F *reqs, F *outcount, F *indices, F *statuses, F *ierr), n, reqs, outcount, indices,
	statuses, ierr)
FORTRAN(testsome, waitsome_fn, f_waitsome, EXP_MPI_TESTSOME,
	(F *n, F *reqs, F *outcount, F *indices, F *statuses, F *ierr), n, reqs, outcount, indices,
	statuses, ierr)

/* ---- collectives ------------------------------------------------------------------ */

typedef void barrier_fn(F *comm, F *ierr);
typedef void ibarrier_fn(F *comm, F *req, F *ierr);
typedef void bcast_fn(void *buf, F *count, F *type, F *root, F *comm, F *ierr);
typedef void ibcast_fn(void *buf, F *count, F *type, F *root, F *comm, F *req, F *ierr);
typedef void reduce_fn(void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm,
		       F *ierr);
typedef void ireduce_fn(void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm,
			F *req, F *ierr);
typedef void allreduce_fn(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr);
typedef void iallreduce_fn(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *req,
			   F *ierr);
typedef void gather_fn(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root,
		       F *comm, F *ierr);
typedef void gatherv_fn(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs,
			F *rtype, F *root, F *comm, F *ierr);
typedef void scatterv_fn(void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount,
			 F *rtype, F *root, F *comm, F *ierr);
typedef void allgather_fn(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype,
			  F *comm, F *ierr);
typedef void allgatherv_fn(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs,
			   F *rtype, F *comm, F *ierr);
typedef void alltoallv_fn(void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts,
			  F *rdispls, F *rtype, F *comm, F *ierr);
typedef void reduce_scatter_fn(void *sbuf, void *rbuf, F *rcounts, F *type, F *op, F *comm,
			       F *ierr);
typedef void reduce_scatter_block_fn(void *sbuf, void *rbuf, F *rcount, F *type, F *op, F *comm,
				     F *ierr);

/* Bodies of calls that name no more than their communicator. */
#define COMM_ONLY(name, params, ...)                                                   \
	BODY void f_##name(name##_fn *real, enum exp_mpi_op op, struct trace_caller at,  \
			   UNPAREN params)                                               \
	{                                                                              \
		struct mpi_call c;                                                     \
		begin(&c, op);                                                         \
		real(__VA_ARGS__);                                                     \
		int rc = returned(&c, ierr);                                           \
		if (c.on)                                                              \
			mpi_comm(&c, comm_of(comm));                                   \
		mpi_end(&c, at, rc);                                                   \
	}
#define UNPAREN(...) __VA_ARGS__

COMM_ONLY(barrier, (F *comm, F *ierr), comm, ierr)

BODY void f_ibarrier(ibarrier_fn *real, enum exp_mpi_op op, struct trace_caller at, F *comm,
		       F *req, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(comm, req, ierr);
	int rc = returned(&c, ierr);
	if (c.on) {
		mpi_comm(&c, comm_of(comm));
		mpi_request_started(&c, PMPI(Request_f2c)(*req), comm_of(comm));
	}
	mpi_end(&c, at, rc);
}

BODY void f_bcast(bcast_fn *real, enum exp_mpi_op op, struct trace_caller at, void *buf,
		    F *count, F *type, F *root, F *comm, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(buf, count, type, root, comm, ierr);
	int rc = returned(&c, ierr);
	if (c.on)
		mpi_coll_bcast(&c, comm_of(comm), *root, mpi_bytes(*count, type_of(type)));
	mpi_end(&c, at, rc);
}

BODY void f_ibcast(ibcast_fn *real, enum exp_mpi_op op, struct trace_caller at, void *buf,
		     F *count, F *type, F *root, F *comm, F *req, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(buf, count, type, root, comm, req, ierr);
	int rc = returned(&c, ierr);
	if (c.on) {
		mpi_coll_bcast(&c, comm_of(comm), *root, mpi_bytes(*count, type_of(type)));
		mpi_request_started(&c, PMPI(Request_f2c)(*req), comm_of(comm));
	}
	mpi_end(&c, at, rc);
}

BODY void f_reduce(reduce_fn *real, enum exp_mpi_op op, struct trace_caller at, void *sbuf,
		     void *rbuf, F *count, F *type, F *rop, F *root, F *comm, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(sbuf, rbuf, count, type, rop, root, comm, ierr);
	int rc = returned(&c, ierr);
	if (c.on)
		mpi_coll_to_root(&c, comm_of(comm), *root, mpi_bytes(*count, type_of(type)), *count,
				 NULL, type_of(type));
	mpi_end(&c, at, rc);
}

BODY void f_ireduce(ireduce_fn *real, enum exp_mpi_op op, struct trace_caller at, void *sbuf,
		      void *rbuf, F *count, F *type, F *rop, F *root, F *comm, F *req, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(sbuf, rbuf, count, type, rop, root, comm, req, ierr);
	int rc = returned(&c, ierr);
	if (c.on) {
		mpi_coll_to_root(&c, comm_of(comm), *root, mpi_bytes(*count, type_of(type)), *count,
				 NULL, type_of(type));
		mpi_request_started(&c, PMPI(Request_f2c)(*req), comm_of(comm));
	}
	mpi_end(&c, at, rc);
}

/* Allreduce, and the scans: everyone sends and receives count x type, to
 * all members (allreduce) or one (scan, exscan). */
BODY void f_allreduce(allreduce_fn *real, enum exp_mpi_op op, struct trace_caller at,
			void *sbuf, void *rbuf, F *count, F *type, F *rop, F *comm, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(sbuf, rbuf, count, type, rop, comm, ierr);
	int rc = returned(&c, ierr);
	if (c.on && op == EXP_MPI_ALLREDUCE)
		mpi_coll_all(&c, comm_of(comm), *count, NULL, type_of(type), *count, NULL, type_of(type));
	else if (c.on)
		mpi_coll_one(&c, comm_of(comm), mpi_bytes(*count, type_of(type)));
	mpi_end(&c, at, rc);
}

BODY void f_iallreduce(iallreduce_fn *real, enum exp_mpi_op op, struct trace_caller at,
			 void *sbuf, void *rbuf, F *count, F *type, F *rop, F *comm, F *req, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(sbuf, rbuf, count, type, rop, comm, req, ierr);
	int rc = returned(&c, ierr);
	if (c.on) {
		mpi_coll_all(&c, comm_of(comm), *count, NULL, type_of(type), *count, NULL, type_of(type));
		mpi_request_started(&c, PMPI(Request_f2c)(*req), comm_of(comm));
	}
	mpi_end(&c, at, rc);
}

/* Gather, scatter, allgather, alltoall: the same arguments, four models. */
BODY void f_gather(gather_fn *real, enum exp_mpi_op op, struct trace_caller at, void *sbuf,
		     F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr);
	int rc = returned(&c, ierr);
	if (c.on) {
		MPI_Comm cc = comm_of(comm);
		MPI_Datatype st = type_of(stype), rt = type_of(rtype);
		if (op == EXP_MPI_GATHER)
			mpi_coll_to_root(&c, cc, *root, in_place(sbuf) ? mpi_bytes(*rcount, rt)
								       : mpi_bytes(*scount, st),
					 *rcount, NULL, rt);
		else if (op == EXP_MPI_SCATTER)
			mpi_coll_from_root(&c, cc, *root, *scount, NULL, st,
					   in_place(rbuf) ? mpi_bytes(*scount, st) : mpi_bytes(*rcount, rt));
		else if (in_place(sbuf))
			mpi_coll_all(&c, cc, *rcount, NULL, rt, *rcount, NULL, rt);
		else
			mpi_coll_all(&c, cc, *scount, NULL, st, *rcount, NULL, rt);
	}
	mpi_end(&c, at, rc);
}

BODY void f_allgather(allgather_fn *real, enum exp_mpi_op op, struct trace_caller at,
			void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm,
			F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr);
	int rc = returned(&c, ierr);
	if (c.on && in_place(sbuf))
		mpi_coll_all(&c, comm_of(comm), *rcount, NULL, type_of(rtype), *rcount, NULL,
			     type_of(rtype));
	else if (c.on)
		mpi_coll_all(&c, comm_of(comm), *scount, NULL, type_of(stype), *rcount, NULL,
			     type_of(rtype));
	mpi_end(&c, at, rc);
}

BODY void f_gatherv(gatherv_fn *real, enum exp_mpi_op op, struct trace_caller at, void *sbuf,
		      F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *root,
		      F *comm, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr);
	int rc = returned(&c, ierr);
	if (c.on)
		mpi_coll_to_root(&c, comm_of(comm), *root,
				 in_place(sbuf) ? 0 : mpi_bytes(*scount, type_of(stype)), 0,
				 (const int *)rcounts, type_of(rtype));
	mpi_end(&c, at, rc);
}

BODY void f_scatterv(scatterv_fn *real, enum exp_mpi_op op, struct trace_caller at, void *sbuf,
		       F *scounts, F *displs, F *stype, void *rbuf, F *rcount, F *rtype, F *root,
		       F *comm, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr);
	int rc = returned(&c, ierr);
	if (c.on)
		mpi_coll_from_root(&c, comm_of(comm), *root, 0, (const int *)scounts, type_of(stype),
				   in_place(rbuf) ? 0 : mpi_bytes(*rcount, type_of(rtype)));
	mpi_end(&c, at, rc);
}

BODY void f_allgatherv(allgatherv_fn *real, enum exp_mpi_op op, struct trace_caller at,
			 void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs,
			 F *rtype, F *comm, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr);
	int rc = returned(&c, ierr);
	if (c.on) {
		MPI_Comm cc = comm_of(comm);
		int mine = in_place(sbuf) ? rcounts[mpi_comm_rank(cc)] : *scount;
		mpi_coll_all(&c, cc, mine, NULL, in_place(sbuf) ? type_of(rtype) : type_of(stype), 0,
			     (const int *)rcounts, type_of(rtype));
	}
	mpi_end(&c, at, rc);
}

BODY void f_alltoallv(alltoallv_fn *real, enum exp_mpi_op op, struct trace_caller at,
			void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts,
			F *rdispls, F *rtype, F *comm, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr);
	int rc = returned(&c, ierr);
	if (c.on && in_place(sbuf))
		mpi_coll_all(&c, comm_of(comm), 0, (const int *)rcounts, type_of(rtype), 0,
			     (const int *)rcounts, type_of(rtype));
	else if (c.on)
		mpi_coll_all(&c, comm_of(comm), 0, (const int *)scounts, type_of(stype), 0,
			     (const int *)rcounts, type_of(rtype));
	mpi_end(&c, at, rc);
}

BODY void f_reduce_scatter(reduce_scatter_fn *real, enum exp_mpi_op op, struct trace_caller at,
			     void *sbuf, void *rbuf, F *rcounts, F *type, F *rop, F *comm, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(sbuf, rbuf, rcounts, type, rop, comm, ierr);
	int rc = returned(&c, ierr);
	if (c.on)
		mpi_coll_all(&c, comm_of(comm), 0, (const int *)rcounts, type_of(type), 0,
			     (const int *)rcounts, type_of(type));
	mpi_end(&c, at, rc);
}

BODY void f_reduce_scatter_block(reduce_scatter_block_fn *real, enum exp_mpi_op op,
				   struct trace_caller at, void *sbuf, void *rbuf, F *rcount,
				   F *type, F *rop, F *comm, F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	real(sbuf, rbuf, rcount, type, rop, comm, ierr);
	int rc = returned(&c, ierr);
	if (c.on)
		mpi_coll_all(&c, comm_of(comm), *rcount, NULL, type_of(type), *rcount, NULL,
			     type_of(type));
	mpi_end(&c, at, rc);
}

FORTRAN(barrier, barrier_fn, f_barrier, EXP_MPI_BARRIER, (F *comm, F *ierr), comm, ierr)
FORTRAN(ibarrier, ibarrier_fn, f_ibarrier, EXP_MPI_IBARRIER, (F *comm, F *req, F *ierr), comm,
	req, ierr)
FORTRAN(bcast, bcast_fn, f_bcast, EXP_MPI_BCAST,
	(void *buf, F *count, F *type, F *root, F *comm, F *ierr), buf, count, type, root, comm, ierr)
FORTRAN(ibcast, ibcast_fn, f_ibcast, EXP_MPI_IBCAST,
	(void *buf, F *count, F *type, F *root, F *comm, F *req, F *ierr), buf, count, type, root,
	comm, req, ierr)
FORTRAN(reduce, reduce_fn, f_reduce, EXP_MPI_REDUCE,
	(void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm, F *ierr), sbuf, rbuf,
	count, type, op, root, comm, ierr)
FORTRAN(ireduce, ireduce_fn, f_ireduce, EXP_MPI_IREDUCE,
	(void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm, F *req, F *ierr), sbuf,
	rbuf, count, type, op, root, comm, req, ierr)
#define ALLREDUCE_PARAMS (void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr)
FORTRAN(allreduce, allreduce_fn, f_allreduce, EXP_MPI_ALLREDUCE, ALLREDUCE_PARAMS, sbuf, rbuf,
	count, type, op, comm, ierr)
FORTRAN(scan, allreduce_fn, f_allreduce, EXP_MPI_SCAN, ALLREDUCE_PARAMS, sbuf, rbuf, count, type,
	op, comm, ierr)
FORTRAN(exscan, allreduce_fn, f_allreduce, EXP_MPI_EXSCAN, ALLREDUCE_PARAMS, sbuf, rbuf, count,
	type, op, comm, ierr)
FORTRAN(iallreduce, iallreduce_fn, f_iallreduce, EXP_MPI_IALLREDUCE,
	(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *req, F *ierr), sbuf, rbuf,
	count, type, op, comm, req, ierr)
#define GATHER_PARAMS                                                                  \
	(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *ierr)
FORTRAN(gather, gather_fn, f_gather, EXP_MPI_GATHER, GATHER_PARAMS, sbuf, scount, stype, rbuf,
	rcount, rtype, root, comm, ierr)
FORTRAN(scatter, gather_fn, f_gather, EXP_MPI_SCATTER, GATHER_PARAMS, sbuf, scount, stype, rbuf,
	rcount, rtype, root, comm, ierr)
#define ALLGATHER_PARAMS                                                               \
	(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *ierr)
FORTRAN(allgather, allgather_fn, f_allgather, EXP_MPI_ALLGATHER, ALLGATHER_PARAMS, sbuf, scount,
	stype, rbuf, rcount, rtype, comm, ierr)
FORTRAN(alltoall, allgather_fn, f_allgather, EXP_MPI_ALLTOALL, ALLGATHER_PARAMS, sbuf, scount,
	stype, rbuf, rcount, rtype, comm, ierr)
FORTRAN(gatherv, gatherv_fn, f_gatherv, EXP_MPI_GATHERV,
	(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *root,
	 F *comm, F *ierr),
	sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr)
FORTRAN(scatterv, scatterv_fn, f_scatterv, EXP_MPI_SCATTERV,
	(void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount, F *rtype, F *root,
	 F *comm, F *ierr),
	sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr)
FORTRAN(allgatherv, allgatherv_fn, f_allgatherv, EXP_MPI_ALLGATHERV,
	(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *comm,
	 F *ierr),
	sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr)
FORTRAN(alltoallv, alltoallv_fn, f_alltoallv, EXP_MPI_ALLTOALLV,
	(void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts, F *rdispls,
	 F *rtype, F *comm, F *ierr),
	sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr)
FORTRAN(reduce_scatter, reduce_scatter_fn, f_reduce_scatter, EXP_MPI_REDUCE_SCATTER,
	(void *sbuf, void *rbuf, F *rcounts, F *type, F *op, F *comm, F *ierr), sbuf, rbuf, rcounts,
	type, op, comm, ierr)
FORTRAN(reduce_scatter_block, reduce_scatter_block_fn, f_reduce_scatter_block,
	EXP_MPI_REDUCE_SCATTER_BLOCK,
	(void *sbuf, void *rbuf, F *rcount, F *type, F *op, F *comm, F *ierr), sbuf, rbuf, rcount,
	type, op, comm, ierr)

/* ---- communicators ------------------------------------------------------------------ */

typedef void comm_split_fn(F *comm, F *color, F *key, F *newcomm, F *ierr);
typedef void comm_create_fn(F *comm, F *group, F *newcomm, F *ierr);
typedef void comm_dup_fn(F *comm, F *newcomm, F *ierr);
typedef void comm_free_fn(F *comm, F *ierr);

COMM_ONLY(comm_split, (F *comm, F *color, F *key, F *newcomm, F *ierr), comm, color, key, newcomm, ierr)
COMM_ONLY(comm_create, (F *comm, F *group, F *newcomm, F *ierr), comm, group, newcomm, ierr)
COMM_ONLY(comm_dup, (F *comm, F *newcomm, F *ierr), comm, newcomm, ierr)

BODY void f_comm_free(comm_free_fn *real, enum exp_mpi_op op, struct trace_caller at, F *comm,
			F *ierr)
{
	struct mpi_call c;
	begin(&c, op);
	if (c.on) {
		mpi_comm(&c, comm_of(comm));
		mpi_comm_forget(comm_of(comm));
	}
	real(comm, ierr);
	mpi_end(&c, at, returned(&c, ierr));
}

FORTRAN(comm_split, comm_split_fn, f_comm_split, EXP_MPI_COMM_SPLIT,
	(F *comm, F *color, F *key, F *newcomm, F *ierr), comm, color, key, newcomm, ierr)
FORTRAN(comm_create, comm_create_fn, f_comm_create, EXP_MPI_COMM_CREATE,
	(F *comm, F *group, F *newcomm, F *ierr), comm, group, newcomm, ierr)
FORTRAN(comm_dup, comm_dup_fn, f_comm_dup, EXP_MPI_COMM_DUP, (F *comm, F *newcomm, F *ierr), comm,
	newcomm, ierr)
FORTRAN(comm_free, comm_free_fn, f_comm_free, EXP_MPI_COMM_FREE, (F *comm, F *ierr), comm, ierr)
