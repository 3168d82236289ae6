/* SPDX-License-Identifier: MIT
 *
 * mpi_real.h — the MPI library as the tracer reaches it, beneath every file
 * of libtally-mpi.so: the real PMPI_name functions, found with dlsym on
 * first use (PMPI(name)), and the data symbols behind mpi.h's constants,
 * weak so that the library loads into processes without libmpi (the
 * launcher, shells).  The library does not link libmpi: mpi_trace.h says
 * why.  It includes no file of the tracer, so that mpi_clock.c calls MPI
 * without mpi_trace.c, which calls it.
 */
#ifndef TALLY_MPI_REAL_H
#define TALLY_MPI_REAL_H

#include <dlfcn.h>
#include <mpi.h>

#ifdef OPEN_MPI
/* The data symbols behind mpi.h's constants: weak, so that the library
 * loads into processes without libmpi (they are never used there). */
#pragma weak ompi_mpi_comm_world
#pragma weak ompi_mpi_comm_self
#pragma weak ompi_request_null
#pragma weak MPI_F_STATUS_IGNORE
#pragma weak ompi_mpi_byte
#pragma weak ompi_mpi_int64_t
#endif

/* The real PMPI_name, resolved on first use (NULL-safe only after MPI is
 * loaded, which a call to one of our wrappers implies). */
#define PMPI(name)                                                           \
	(*({                                                                 \
		static __typeof__(&PMPI_##name) real_;                       \
		if (__builtin_expect(!real_, 0))                             \
			real_ = (__typeof__(&PMPI_##name))mpi_resolve("PMPI_" #name); \
		real_;                                                       \
	}))

/* Inline, so that calling MPI needs no file of the tracer. */
static inline void *mpi_resolve(const char *symbol)
{
	void *p = dlsym(RTLD_NEXT, symbol);
	return p ? p : dlsym(RTLD_DEFAULT, symbol);
}

#endif
