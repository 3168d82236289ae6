/* SPDX-License-Identifier: MIT
 *
 * model_metrics.c — the metric registry: each enum model_metric's name (the
 * CLI's --metric), column title and unit.  Adding a metric is one enum value
 * in model.h and one line here.
 */
#include <string.h>

#include "model/model.h"

static const struct model_metric_info metric_info[MODEL_METRIC_COUNT] = {
	[MODEL_CPU] = { "cpu", "CPU", true },
	[MODEL_HEAP_BYTES] = { "heap.bytes", "Heap bytes", false },
	[MODEL_HEAP_COUNT] = { "heap.count", "Allocs", false },
	[MODEL_HEAP_LEAK] = { "heap.leak", "Leaked bytes", false },
	[MODEL_SYNC_WAIT] = { "sync.wait", "Sync wait", true },
	[MODEL_SYNC_COUNT] = { "sync.count", "Waits", false },
	[MODEL_SYNC_OTHER] = { "sync.other", "Other waits", true },
	[MODEL_IO_BYTES] = { "io.bytes", "I/O bytes", false },
	[MODEL_IO_TIME] = { "io.time", "I/O time", true },
	[MODEL_IO_COUNT] = { "io.count", "I/O calls", false },
	[MODEL_MPI_TIME] = { "mpi.time", "MPI time", true },
	[MODEL_MPI_COUNT] = { "mpi.count", "MPI calls", false },
	[MODEL_MPI_BYTES_SENT] = { "mpi.bytes.sent", "MPI sent", false },
	[MODEL_MPI_BYTES_RECV] = { "mpi.bytes.recv", "MPI received", false },
	[MODEL_SAMPLES] = { "samples", "Samples", false },
};

const struct model_metric_info *model_metric_info(enum model_metric m)
{
	return &metric_info[m];
}

int model_metric_parse(const char *name)
{
	for (int i = 0; i < MODEL_METRIC_COUNT; i++)
		if (!strcmp(name, metric_info[i].name))
			return i;
	return -1;
}
