/* SPDX-License-Identifier: MIT
 *
 * exp_mpi_ops.h — the MPI functions libtally-mpi.so traces, numbered for
 * the `op` field of EXP_REC_MPI records (exp_records.h).  Shared by the
 * tracer (which writes the numbers) and the analyzer (which names them).
 * Numbers are part of the format: append, never renumber.
 */
#ifndef TALLY_EXP_MPI_OPS_H
#define TALLY_EXP_MPI_OPS_H

#include <stdbool.h>

/* X(number, NAME, "MPI_Name") */
#define EXP_MPI_OPS(X)                                                       \
	X(1, INIT, "MPI_Init")                                               \
	X(2, INIT_THREAD, "MPI_Init_thread")                                 \
	X(3, FINALIZE, "MPI_Finalize")                                       \
	X(4, SEND, "MPI_Send")                                               \
	X(5, SSEND, "MPI_Ssend")                                             \
	X(6, BSEND, "MPI_Bsend")                                             \
	X(7, RSEND, "MPI_Rsend")                                             \
	X(8, RECV, "MPI_Recv")                                               \
	X(9, SENDRECV, "MPI_Sendrecv")                                       \
	X(10, SENDRECV_REPLACE, "MPI_Sendrecv_replace")                      \
	X(11, PROBE, "MPI_Probe")                                            \
	X(12, ISEND, "MPI_Isend")                                            \
	X(13, ISSEND, "MPI_Issend")                                          \
	X(14, IBSEND, "MPI_Ibsend")                                          \
	X(15, IRSEND, "MPI_Irsend")                                          \
	X(16, IRECV, "MPI_Irecv")                                            \
	X(17, IPROBE, "MPI_Iprobe")                                          \
	X(18, WAIT, "MPI_Wait")                                              \
	X(19, WAITALL, "MPI_Waitall")                                        \
	X(20, WAITANY, "MPI_Waitany")                                        \
	X(21, WAITSOME, "MPI_Waitsome")                                      \
	X(22, TEST, "MPI_Test")                                              \
	X(23, TESTALL, "MPI_Testall")                                        \
	X(24, TESTANY, "MPI_Testany")                                        \
	X(25, TESTSOME, "MPI_Testsome")                                      \
	X(26, BARRIER, "MPI_Barrier")                                        \
	X(27, BCAST, "MPI_Bcast")                                            \
	X(28, REDUCE, "MPI_Reduce")                                          \
	X(29, ALLREDUCE, "MPI_Allreduce")                                    \
	X(30, GATHER, "MPI_Gather")                                          \
	X(31, GATHERV, "MPI_Gatherv")                                        \
	X(32, SCATTER, "MPI_Scatter")                                        \
	X(33, SCATTERV, "MPI_Scatterv")                                      \
	X(34, ALLGATHER, "MPI_Allgather")                                    \
	X(35, ALLGATHERV, "MPI_Allgatherv")                                  \
	X(36, ALLTOALL, "MPI_Alltoall")                                      \
	X(37, ALLTOALLV, "MPI_Alltoallv")                                    \
	X(38, REDUCE_SCATTER, "MPI_Reduce_scatter")                          \
	X(39, REDUCE_SCATTER_BLOCK, "MPI_Reduce_scatter_block")              \
	X(40, SCAN, "MPI_Scan")                                              \
	X(41, EXSCAN, "MPI_Exscan")                                          \
	X(42, IBARRIER, "MPI_Ibarrier")                                      \
	X(43, IBCAST, "MPI_Ibcast")                                          \
	X(44, IREDUCE, "MPI_Ireduce")                                        \
	X(45, IALLREDUCE, "MPI_Iallreduce")                                  \
	X(46, COMM_SPLIT, "MPI_Comm_split")                                  \
	X(47, COMM_DUP, "MPI_Comm_dup")                                      \
	X(48, COMM_CREATE, "MPI_Comm_create")                                \
	X(49, COMM_FREE, "MPI_Comm_free")

enum exp_mpi_op {
	EXP_MPI_OP_NONE = 0,
#define EXP_MPI_OP_ENUM(n, id, name) EXP_MPI_##id = n,
	EXP_MPI_OPS(EXP_MPI_OP_ENUM)
#undef EXP_MPI_OP_ENUM
	EXP_MPI_OP_COUNT_
};

/* "MPI_Send" for EXP_MPI_SEND; NULL for a number this reader does not know. */
const char *exp_mpi_op_name(unsigned op);

/* The op of a symbol of the tracer (libtally-mpi.so) that interposes an MPI
 * function: "MPI_Send", or its Fortran names "mpi_send_", "mpi_send_f08_";
 * 0 for any other name. */
unsigned exp_mpi_op_of_symbol(const char *name);

/* Is op a point-to-point send (its dest and bytes make a message)? */
bool exp_mpi_op_is_send(unsigned op);

#endif
