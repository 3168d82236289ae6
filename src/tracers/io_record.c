/* SPDX-License-Identifier: MIT
 *
 * io_record.c — how libtally-io.so records (see io.h): the tracing switch,
 * IO records, and runs of one-character calls (descriptor names: io_fdname.c).
 *
 * Called from io.c and io_stdio.c in any thread, and from signal handlers
 * (a program may write in one): the collector refuses reentry into itself,
 * and a thread's run is only touched by the thread (a handler that
 * interrupts a run's update finds it busy and records its call alone).
 *
 * A run's first call is recorded at once, with its stack; the record fills in
 * the stack id, which the run keeps.  Later calls of the run only add to
 * counters, written as one record (`calls` = how many) when the run ends:
 * when the thread makes another traced call, after IO_RUN_MAX calls, when
 * the thread ends (the collector calls us first, tally__on_thread_end) and
 * at process exit.  A run whose record cannot be written is counted in
 * lost.trace-events.  Same call site means the same
 * return address and stack pointer: the stack of a loop's getc is taken once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tracers/io.h"

#define IO_RUN_MAX 65536u

static struct trace_switch on;

/* The calling thread's run of one-character calls. */
struct io_run {
	const void *key;                  /* FILE * */
	uint64_t ra, sp;                  /* call site */
	int fd;
	uint16_t op;
	bool active, busy;
	uint32_t stack_id;
	uint64_t t0, dur_ns, bytes, calls;   /* pending: not yet written */
};
static __thread struct io_run run;

bool io_tracing(void)
{
	static int named_std;

	if (trace_option(&on, "io") <= 0)
		return false;
	if (!named_std) {
		/* Inherited descriptors: name what they stand for. */
		named_std = 1;
		for (int fd = 0; fd < 3; fd++)
			io_name_fd(fd, NULL, 0);
	}
	return true;
}

/* Write `r`, with the stack from `at` (NULL: r->stack_id is already set).
 * A descriptor seen for the first time (made by a call we do not trace:
 * eventfd, glibc's own opens) is named from /proc first, and a read or
 * write's descriptor gets its flow (io_flow.c) once.  The collector
 * fills in the thread, and the stack id, in `r` itself.  0 or -1. */
static int record(const struct trace_caller *at, struct exp_io *r)
{
	if (r->op != EXP_IO_OPEN && r->op != EXP_IO_CLOSE)
		io_name_unnamed(r->fd, r->time_ns);
	if (r->op == EXP_IO_READ || r->op == EXP_IO_WRITE)
		io_flow_note(r->fd, r->time_ns);
	return tally__trace_event(EXP_FILE_IO, EXP_REC_IO, r, sizeof(*r), at ? at->ra : 0,
				  at ? at->sp : 0, at ? at->fp : 0);
}

/* Write the run's pending calls (keeping the run). */
static void run_write(void)
{
	if (!run.calls)
		return;
	struct exp_io r = { .time_ns = run.t0, .stack_id = run.stack_id, .op = run.op, .fd = run.fd,
			    .bytes = (int64_t)run.bytes, .dur_ns = run.dur_ns,
			    .calls = run.calls > UINT32_MAX ? UINT32_MAX : (uint32_t)run.calls };
	if (record(NULL, &r) != 0)
		tally__count(EXP_CTR_LOST_EVENTS, 1);
	run.calls = run.bytes = run.dur_ns = 0;
}

void io_run_end(void)
{
	if (!run.active || run.busy)
		return;
	run.busy = true;
	run_write();
	run.active = false;
	run.busy = false;
}

uint32_t io_note(struct trace_caller at, uint16_t op, int fd, int64_t bytes, uint64_t t0)
{
	struct exp_io r = { .time_ns = t0, .op = op, .fd = fd, .bytes = bytes,
			    .dur_ns = tally__now() - t0, .calls = 1 };

	io_run_end();
	io_buffered_flush(fd);
	return record(&at, &r) == 0 ? r.stack_id : 0;
}

void io_note_same(uint32_t stack_id, uint16_t op, int fd, int64_t bytes, uint64_t t0)
{
	struct exp_io r = { .time_ns = t0, .stack_id = stack_id, .op = op,
			    .flags = EXP_IO_SAME_CALL, .fd = fd, .bytes = bytes, .calls = 1 };

	record(NULL, &r);
}


void io_one(const void *key, struct trace_caller at, uint16_t op, int fd, uint64_t bytes,
	    uint64_t t0)
{
	uint64_t dur = tally__now() - t0;

	if (run.busy) {                   /* a signal handler inside our update */
		struct exp_io r = { .time_ns = t0, .op = op, .fd = fd, .bytes = (int64_t)bytes,
				    .dur_ns = dur, .calls = 1 };
		record(&at, &r);
		return;
	}
	run.busy = true;
	if (run.active && run.key == key && run.op == op && run.ra == at.ra && run.sp == at.sp &&
	    run.fd == fd) {
		if (!run.calls)
			run.t0 = t0;
		run.calls++;
		run.bytes += bytes;
		run.dur_ns += dur;
		if (run.calls >= IO_RUN_MAX)
			run_write();
		run.busy = false;
		return;
	}
	if (run.active) {
		run_write();
		run.active = false;
	}
	struct exp_io r = { .time_ns = t0, .op = op, .fd = fd, .bytes = (int64_t)bytes,
			    .dur_ns = dur, .calls = 1 };
	if (record(&at, &r) == 0 && r.stack_id) {
		run = (struct io_run){ .key = key, .ra = at.ra, .sp = at.sp, .fd = fd, .op = op,
				       .active = true, .busy = true, .stack_id = r.stack_id };
	}
	run.busy = false;
}

/* A fork child's copy of the run belongs to the parent, which writes it. */
static void run_in_fork_child(void)
{
	run.active = false;
	run.calls = 0;
}

/* What the thread has pending: its run, its sums of buffered calls. */
static void pending_end(void)
{
	io_run_end();
	io_buffered_flush(-1);
}

__attribute__((constructor)) static void io_record_init(void)
{
	(void)tally__real();      /* the real functions now: tracer.h, trace_resolve_note */
	tally__on_thread_end(pending_end);
	pthread_atfork(NULL, NULL, run_in_fork_child);
}

__attribute__((destructor)) static void io_record_fini(void)
{
	pending_end();
}
