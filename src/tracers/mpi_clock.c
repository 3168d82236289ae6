/* SPDX-License-Identifier: MIT
 *
 * mpi_clock.c — how far each rank's clock is from rank 0's, so that a job
 * whose ranks ran on several hosts (each with its own CLOCK_MONOTONIC) is
 * drawn on one time axis (docs/mpi.md "Time across hosts").  Called by
 * mpi_trace.c right after MPI_Init returns and right before MPI_Finalize, in
 * every rank (both are collective), never from a signal handler.
 *
 * Cristian's method: rank 0 serves the other ranks in turn, ROUNDS round
 * trips each, on a duplicate of MPI_COMM_WORLD (so that nothing of the
 * program's traffic can match them).  A rank sends at its time t1, rank 0
 * answers with its time t0, the answer arrives at t3: rank 0's clock was
 * t0 when this rank's read between t1 and t3, so rank 0's clock minus this
 * rank's is t0 - (t1 + t3) / 2, within half the round trip.  The round with
 * the shortest round trip is kept.  Logged (the rank's log.txt):
 *   mpi.clock.offset_ns  add to this rank's times to get rank 0's (signed)
 *   mpi.clock.rtt_ns     that round's round trip: the error is at most half
 *   mpi.clock.at_ns      this rank's time at that round
 * and the same as mpi.clock.end.* before MPI_Finalize: the two give the
 * drift.  Rank 0 logs offset 0, round trip 0.  The cost: ROUNDS round trips
 * per rank, one rank after another (about 2 x size x ROUNDS x latency at
 * start and at end).
 */
#include <stdint.h>
#include <stdio.h>

#include "tracers/mpi_clock.h"
#include "tracers/mpi_real.h"
#include "tracers/tracer.h"

#define ROUNDS 8
#define TAG 7701

static void log_i64(const char *key, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	tally__log(key, buf);
}

void mpi_clock_measure(bool at_end)
{
	MPI_Comm comm;
	int rank = -1, size = 0;
	int64_t best_rtt = INT64_MAX, best_off = 0, best_at = 0;

	if (PMPI(Comm_rank)(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
	    PMPI(Comm_size)(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size < 2 ||
	    PMPI(Comm_dup)(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
		return;
	if (rank == 0) {
		for (int r = 1; r < size; r++)
			for (int k = 0; k < ROUNDS; k++) {
				int64_t t0;
				if (PMPI(Recv)(NULL, 0, MPI_BYTE, r, TAG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
					goto out;
				t0 = (int64_t)tally__now();
				if (PMPI(Send)(&t0, 1, MPI_INT64_T, r, TAG, comm) != MPI_SUCCESS)
					goto out;
			}
		best_rtt = best_off = 0;
		best_at = (int64_t)tally__now();
	} else {
		for (int k = 0; k < ROUNDS; k++) {
			int64_t t0 = 0, t1 = (int64_t)tally__now();
			if (PMPI(Send)(NULL, 0, MPI_BYTE, 0, TAG, comm) != MPI_SUCCESS ||
			    PMPI(Recv)(&t0, 1, MPI_INT64_T, 0, TAG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
				goto out;
			int64_t t3 = (int64_t)tally__now();
			if (t3 - t1 < best_rtt) {
				best_rtt = t3 - t1;
				best_at = t1 + (t3 - t1) / 2;
				best_off = t0 - best_at;
			}
		}
	}
	log_i64(at_end ? "mpi.clock.end.offset_ns" : "mpi.clock.offset_ns", best_off);
	log_i64(at_end ? "mpi.clock.end.rtt_ns" : "mpi.clock.rtt_ns", best_rtt);
	log_i64(at_end ? "mpi.clock.end.at_ns" : "mpi.clock.at_ns", best_at);
out:
	PMPI(Comm_free)(&comm);
}
