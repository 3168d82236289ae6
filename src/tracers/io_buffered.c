/* SPDX-License-Identifier: MIT
 *
 * io_buffered.c — stdio calls whose bytes stayed in the stream's buffer,
 * summed per (stack, descriptor, op) in the thread (io.h: io_buffered).
 *
 * Such a call makes no system call: nothing of it is a moment another
 * thread or process could see, so it needs no record in time order.  Its
 * calls, bytes and time are added to the thread's entry of its stack (the
 * collector's memo gives the id, a walk only for a stack it has not kept),
 * and an entry is written as one IO record (EXP_IO_BUFFERED: time of its
 * first call, the calls' time summed) when a traced call on its descriptor
 * reaches the kernel (the write(2) or read(2) that flushes or refills the
 * buffer stays an event of its own, io_note), before its descriptor is
 * closed or replaced (its name is still its file's), when the table has no
 * room, when the thread ends (and the thread calling exit or exec: at its
 * exit, before its exec).  The compiler under `make`
 * made 230,000 stdio calls, a record each (buildcost14); each buffer
 * flushed now writes the few call sites that filled it.
 *
 * Other threads' tables cannot be reached at exit or exec, nor any at
 * _exit, abort or a crash: an entry is counted in lost.trace-events from
 * its first call until it is written (the counters are a shared mapping,
 * so a SIGKILL leaves the count right), so what never reaches the file is
 * said, one count per entry, not per call.
 *
 * A thread's table is only touched by the thread; a signal handler that
 * interrupts an update finds it busy, and its call is an event (io_stdio.c).
 * A fork child's copy is the parent's, which writes it: the child drops it.
 */
#include <pthread.h>
#include <stdbool.h>

#include "tracers/io.h"

#define SLOTS 64                      /* entries per thread, a power of two */
#define PROBES 8

struct sum {
	uint32_t stack_id;                /* 0: empty */
	uint16_t op;
	int32_t fd;
	uint32_t calls;
	uint64_t bytes, dur_ns, t0;
};

static __thread struct {
	bool busy;
	uint32_t used;                    /* entries not empty */
	struct sum slot[SLOTS];
} sums;

/* Write entry s and empty it; a record that cannot be written stays
 * counted as lost. */
static void sum_write(struct sum *s)
{
	struct exp_io r = { .time_ns = s->t0, .stack_id = s->stack_id, .op = s->op,
			    .flags = EXP_IO_BUFFERED, .fd = s->fd, .bytes = (int64_t)s->bytes,
			    .dur_ns = s->dur_ns, .calls = s->calls };

	io_name_unnamed(s->fd, s->t0);
	if (tally__trace_event(EXP_FILE_IO, EXP_REC_IO, &r, sizeof(r), 0, 0, 0) == 0)
		tally__count(EXP_CTR_LOST_EVENTS, UINT64_MAX);   /* written: -1 */
	s->stack_id = 0;
	sums.used--;
}

/* Write the entries of descriptor fd (-1: all). */
static void write_of(int fd)
{
	for (uint32_t i = 0; i < SLOTS && sums.used; i++)
		if (sums.slot[i].stack_id && (fd < 0 || sums.slot[i].fd == fd))
			sum_write(&sums.slot[i]);
}

void io_buffered_flush(int fd)
{
	if (!sums.used || sums.busy)
		return;
	sums.busy = true;
	write_of(fd);
	sums.busy = false;
}

bool io_buffered(struct trace_caller at, uint16_t op, int fd, uint64_t bytes, uint64_t t0)
{
	uint32_t tid;

	uint64_t dur = tally__now() - t0;

	if (sums.busy || bytes >= UINT32_MAX)
		return false;
	sums.busy = true;
	uint32_t id = tally__trace_stack(at.ra, at.sp, at.fp, &tid);
	if (!id) {
		sums.busy = false;
		return false;
	}
	uint32_t home = (uint32_t)(((uint64_t)id * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)fd << 8 ^ op) >> 40);
	struct sum *free_slot = NULL;
	for (uint32_t i = 0; i < PROBES; i++) {
		struct sum *s = &sums.slot[(home + i) & (SLOTS - 1)];
		if (!s->stack_id) {
			if (!free_slot)
				free_slot = s;
			continue;
		}
		if (s->stack_id == id && s->fd == fd && s->op == op) {
			if (s->calls == UINT32_MAX || s->bytes + bytes < s->bytes) {
				sum_write(s);
				free_slot = s;
				break;
			}
			s->calls++;
			s->bytes += bytes;
			s->dur_ns += dur;
			sums.busy = false;
			return true;
		}
	}
	if (!free_slot) {                 /* no room near home: write them all */
		write_of(-1);
		free_slot = &sums.slot[home & (SLOTS - 1)];
	}
	*free_slot = (struct sum){ .stack_id = id, .op = op, .fd = fd, .calls = 1, .bytes = bytes,
				   .dur_ns = dur, .t0 = t0 };
	sums.used++;
	tally__count(EXP_CTR_LOST_EVENTS, 1);   /* lost until written */
	sums.busy = false;
	return true;
}

/* A fork child's copy of the sums belongs to the parent, which writes them
 * (and counts them: the child's counters start at zero). */
static void sums_in_fork_child(void)
{
	for (uint32_t i = 0; i < SLOTS; i++)
		sums.slot[i].stack_id = 0;
	sums.used = 0;
	sums.busy = false;
}

__attribute__((constructor)) static void io_buffered_init(void)
{
	pthread_atfork(NULL, NULL, sums_in_fork_child);
}
