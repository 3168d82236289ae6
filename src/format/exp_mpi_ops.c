/* SPDX-License-Identifier: MIT
 *
 * exp_mpi_ops.c — names of the MPI functions the tracer numbers (see
 * exp_mpi_ops.h), for the analyzer.
 */
#include <string.h>
#include <strings.h>

#include "format/exp_mpi_ops.h"

static const char *const names[EXP_MPI_OP_COUNT_] = {
#define EXP_MPI_OP_NAME(n, id, name) [n] = name,
	EXP_MPI_OPS(EXP_MPI_OP_NAME)
#undef EXP_MPI_OP_NAME
};

const char *exp_mpi_op_name(unsigned op)
{
	return op < EXP_MPI_OP_COUNT_ ? names[op] : NULL;
}

unsigned exp_mpi_op_of_symbol(const char *name)
{
	size_t len = strlen(name);

	if (strncasecmp(name, "mpi_", 4))
		return 0;
	if (len > 5 && !strcmp(name + len - 5, "_f08_"))
		len -= 5;
	else if (len > 1 && name[len - 1] == '_')
		len -= 1;
	for (unsigned op = 1; op < EXP_MPI_OP_COUNT_; op++)
		if (strlen(names[op]) == len && !strncasecmp(names[op], name, len))
			return op;
	return 0;
}

bool exp_mpi_op_is_send(unsigned op)
{
	switch (op) {
	case EXP_MPI_SEND: case EXP_MPI_SSEND: case EXP_MPI_BSEND: case EXP_MPI_RSEND:
	case EXP_MPI_ISEND: case EXP_MPI_ISSEND: case EXP_MPI_IBSEND: case EXP_MPI_IRSEND:
	case EXP_MPI_SENDRECV: case EXP_MPI_SENDRECV_REPLACE:
		return true;
	default:
		return false;
	}
}
