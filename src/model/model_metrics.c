/* SPDX-License-Identifier: MIT
 *
 * model_metrics.c — the metric table: each enum model_metric's name (the
 * CLI's --metric), column title, unit, kind, the option that records it and
 * its name in each exporter.  Adding a metric is one enum value in model.h
 * and one row here; tests/unit/test_vocab.c walks the rows.  Counter metrics (`tally record -c`) are
 * named after their event as events are met (model_metric_counter).
 */
#include <string.h>

#include "format/exp_events.h"
#include "model/model.h"

#define NCOUNTERS (MODEL_COUNTER_LAST - MODEL_COUNTER_0 + 1)

/* A row: name, title, unit, kind, recording option, the log's options: key
 * and its value when off, what records it, the callgrind event. */
#define ROW(name, title, unit, kind, rec, key, off, what, cg) \
	{ name, title, (unit) == MODEL_UNIT_NS, unit, kind, rec, key, off, what, cg }
#define NS MODEL_UNIT_NS
#define BYTES MODEL_UNIT_BYTES
#define COUNT MODEL_UNIT_COUNT
#define SAMPLED MODEL_KIND_SAMPLED
#define TRACED MODEL_KIND_TRACED
#define STATE MODEL_KIND_STATE

/* model.present holds one bit per metric. */
_Static_assert(MODEL_METRIC_COUNT <= 32, "model.present is 32 bits: one per metric");

static struct model_metric_info metric_info[MODEL_METRIC_COUNT] = {
	[MODEL_CPU] = ROW("cpu", "CPU", NS, SAMPLED, "-F", "hz", 0, "clock samples", "CPU_ns"),
	[MODEL_HEAP_BYTES] = ROW("heap.bytes", "Heap bytes", BYTES, TRACED, "-H", "heap", 0, "heap events",
				 "Heap_bytes"),
	[MODEL_HEAP_COUNT] = ROW("heap.count", "Allocs", COUNT, TRACED, "-H", "heap", 0, "heap events",
				 "Heap_allocs"),
	[MODEL_HEAP_LEAK] = ROW("heap.leak", "Leaked bytes", BYTES, TRACED, "-H", "heap", 0, "heap events",
				"Heap_leaked_bytes"),
	[MODEL_SYNC_WAIT] = ROW("sync.wait", "Sync wait", NS, TRACED, "-s", "sync", -1,
				"synchronization waits", "Sync_wait_ns"),
	[MODEL_SYNC_COUNT] = ROW("sync.count", "Waits", COUNT, TRACED, "-s", "sync", -1,
				 "synchronization waits", "Sync_waits"),
	[MODEL_SYNC_OTHER] = ROW("sync.other", "Other waits", NS, TRACED, "-s", "sync", -1,
				 "synchronization waits", "Sync_other_ns"),
	[MODEL_SYNC_JOIN] = ROW("sync.join", "Join wait", NS, TRACED, "-s", "sync", -1,
				"synchronization waits", "Join_wait_ns"),
	[MODEL_IO_BYTES] = ROW("io.bytes", "I/O bytes", BYTES, TRACED, "-i", "io", 0, "I/O events", "IO_bytes"),
	[MODEL_IO_TIME] = ROW("io.time", "I/O time", NS, TRACED, "-i", "io", 0, "I/O events", "IO_time_ns"),
	[MODEL_IO_COUNT] = ROW("io.count", "I/O calls", COUNT, TRACED, "-i", "io", 0, "I/O events", "IO_calls"),
	[MODEL_MPI_TIME] = ROW("mpi.time", "MPI time", NS, TRACED, "-m", "mpi", 0, "MPI events", "MPI_time_ns"),
	[MODEL_MPI_COUNT] = ROW("mpi.count", "MPI calls", COUNT, TRACED, "-m", "mpi", 0, "MPI events",
				"MPI_calls"),
	[MODEL_MPI_BYTES_SENT] = ROW("mpi.bytes.sent", "MPI sent", BYTES, TRACED, "-m", "mpi", 0, "MPI events",
				     "MPI_bytes_sent"),
	[MODEL_MPI_BYTES_RECV] = ROW("mpi.bytes.recv", "MPI received", BYTES, TRACED, "-m", "mpi", 0,
				     "MPI events", "MPI_bytes_received"),
	[MODEL_SAMPLES] = ROW("samples", "Samples", COUNT, SAMPLED, "-F", "hz", 0, "clock samples", "Samples"),
	[MODEL_WALL] = ROW("wall", "Wall", NS, STATE, "--states", "states", 0, "thread states", "Wall_ns"),
	[MODEL_CPU_USER] = ROW("cpu.user", "User CPU", NS, STATE, "--states", "states", 0, "thread states",
			       "User_CPU_ns"),
	[MODEL_CPU_SYSTEM] = ROW("cpu.system", "System CPU", NS, STATE, "--states", "states", 0,
				 "thread states", "System_CPU_ns"),
	[MODEL_WAIT_CPU] = ROW("wait.cpu", "Wait CPU", NS, STATE, "--states", "states", 0, "thread states",
			       "Wait_CPU_ns"),
	[MODEL_WAIT_LOCK] = ROW("wait.lock", "Lock wait", NS, STATE, "--states", "states", 0, "thread states",
				"Lock_wait_ns"),
	[MODEL_WAIT_IO] = ROW("wait.io", "I/O wait", NS, STATE, "--states", "states", 0, "thread states",
			      "IO_wait_ns"),
	[MODEL_WAIT_SLEEP] = ROW("wait.sleep", "Sleep", NS, STATE, "--states", "states", 0, "thread states",
				 "Sleep_ns"),
	[MODEL_WAIT_STOPPED] = ROW("wait.stopped", "Stopped", NS, STATE, "--states", "states", 0,
				   "thread states", "Stopped_ns"),
};

/* The events the counter metrics stand for, in the order they were met. */
static struct {
	char name[EXP_EVENT_NAME_MAX];
	char callgrind[EXP_EVENT_NAME_MAX];   /* name, [A-Za-z0-9_] only */
	uint32_t type;
	uint64_t config;
} counters[NCOUNTERS];
static int ncounters;

const struct model_metric_info *model_metric_info(enum model_metric m)
{
	static const struct model_metric_info unnamed =
		ROW("counter", "Counter", COUNT, MODEL_KIND_COUNTER, "-c", NULL, 0, "counter events", "Counter");

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
	for (size_t k = 0; counters[i].name[k]; k++) {
		char ch = counters[i].name[k];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
		counters[i].callgrind[k] = ok ? ch : '_';
	}
	metric_info[MODEL_COUNTER_0 + i] = (struct model_metric_info)ROW(
		counters[i].name, counters[i].name, COUNT, MODEL_KIND_COUNTER, "-c", NULL, 0, "counter events",
		counters[i].callgrind);
	return MODEL_COUNTER_0 + i;
}

bool model_metric_is_counter(int m)
{
	return m >= MODEL_COUNTER_0 && m < MODEL_COUNTER_0 + ncounters;
}

const char *model_unit_pprof(enum model_unit u)
{
	return u == MODEL_UNIT_NS ? "nanoseconds" : u == MODEL_UNIT_BYTES ? "bytes" : "count";
}

const char *model_unit_speedscope(enum model_unit u)
{
	return u == MODEL_UNIT_NS ? "nanoseconds" : u == MODEL_UNIT_BYTES ? "bytes" : "none";
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
