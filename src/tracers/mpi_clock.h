/* SPDX-License-Identifier: MIT
 *
 * mpi_clock.h — each rank's clock against rank 0's (mpi_clock.c), measured
 * by mpi_trace.c after MPI_Init and before MPI_Finalize.
 */
#ifndef TALLY_MPI_CLOCK_H
#define TALLY_MPI_CLOCK_H

#include <stdbool.h>

/* Measure this rank's clock against rank 0's and log it: collective over
 * MPI_COMM_WORLD, after MPI_Init and before MPI_Finalize (at_end). */
void mpi_clock_measure(bool at_end);

#endif
