/* SPDX-License-Identifier: MIT
 *
 * model_metrics.c — the metric registry: each enum model_metric's name (the
 * CLI's --metric), column title and unit.  Adding a metric is one enum value
 * in model.h and one line here.  Counter metrics (`tally record -c`) are
 * named after their event as events are met (model_metric_counter).
 */
#include <string.h>

#include "format/exp_events.h"
#include "model/model.h"

#define NCOUNTERS (MODEL_COUNTER_LAST - MODEL_COUNTER_0 + 1)

static struct model_metric_info metric_info[MODEL_METRIC_COUNT] = {
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
	[MODEL_WALL] = { "wall", "Wall", true },
	[MODEL_CPU_USER] = { "cpu.user", "User CPU", true },
	[MODEL_CPU_SYSTEM] = { "cpu.system", "System CPU", true },
	[MODEL_WAIT_CPU] = { "wait.cpu", "Wait CPU", true },
	[MODEL_WAIT_LOCK] = { "wait.lock", "Lock wait", true },
	[MODEL_WAIT_IO] = { "wait.io", "I/O wait", true },
	[MODEL_WAIT_SLEEP] = { "wait.sleep", "Sleep", true },
	[MODEL_WAIT_STOPPED] = { "wait.stopped", "Stopped", true },
};

/* The events the counter metrics stand for, in the order they were met. */
static struct {
	char name[EXP_EVENT_NAME_MAX];
	uint32_t type;
	uint64_t config;
} counters[NCOUNTERS];
static int ncounters;

const struct model_metric_info *model_metric_info(enum model_metric m)
{
	static const struct model_metric_info unnamed = { "counter", "Counter", false };

	return metric_info[m].name ? &metric_info[m] : &unnamed;
}

int model_metric_counter(const char *name, uint32_t type, uint64_t config)
{
	for (int i = 0; i < ncounters; i++)
		if (counters[i].type == type && counters[i].config == config)
			return MODEL_COUNTER_0 + i;
	if (ncounters == NCOUNTERS)
		return -1;
	int i = ncounters++;
	strncpy(counters[i].name, name, sizeof(counters[i].name) - 1);
	counters[i].type = type;
	counters[i].config = config;
	metric_info[MODEL_COUNTER_0 + i] = (struct model_metric_info){ counters[i].name, counters[i].name, false };
	return MODEL_COUNTER_0 + i;
}

bool model_metric_is_counter(int m)
{
	return m >= MODEL_COUNTER_0 && m < MODEL_COUNTER_0 + ncounters;
}

int model_metric_parse(const char *name)
{
	struct exp_event ev;
	char err[8];

	for (int i = 0; i < MODEL_METRIC_COUNT; i++)
		if (metric_info[i].name && !strcmp(name, metric_info[i].name))
			return i;
	if (exp_event_parse(name, &ev, err, sizeof(err)) == 0 && !strchr(name, '/'))
		return model_metric_counter(ev.name, ev.type, ev.config);
	return -1;
}
