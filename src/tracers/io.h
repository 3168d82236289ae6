/* SPDX-License-Identifier: MIT
 *
 * io.h — the bottom of libtally-io.so (io_record.c, io_flow.c), shared by its two sets
 * of interposers: io.c (descriptors: open, read, write, transfers, sockets)
 * and io_stdio.c (stdio).  Neither calls the other.
 *
 * Every traced call becomes an IO record (exp_records.h): op, descriptor,
 * bytes moved (negative: -errno), start time, duration, and the stack of the
 * traced call's caller.  One-character stdio calls (putc, getc, and the
 * buffer refills and flushes that glibc's inline getc_unlocked/putc_unlocked
 * reach) would cost a record each: consecutive ones from the same call site
 * on the same stream are gathered into one record that says how many calls
 * it stands for (a *run*).  Any other traced call in the thread ends its run
 * first, so records keep their order.  A stdio call on a file or terminal
 * whose bytes stayed in the stream's buffer makes no system call: it is
 * summed per stack instead (io_buffered), out of time order, and written
 * when a call on its descriptor reaches the kernel.
 */
#ifndef TALLY_TRACER_IO_H
#define TALLY_TRACER_IO_H

#include <stdbool.h>
#include <errno.h>
#include <stdint.h>

#include "tracers/tracer.h"

/* Is I/O tracing on?  (The collector has started and -i was given.)  The
 * first time it is, names the inherited descriptors 0-2. */
bool io_tracing(void);

/* Record one traced call of `op` on `fd` that started at `t0` and ended now,
 * moving `bytes` (negative: -errno), with the stack from `at`.  Ends the
 * thread's run first.  Returns the stack id the record got (0: none), so
 * that more records of the same call can share it (io_note_same). */
uint32_t io_note(struct trace_caller at, uint16_t op, int fd, int64_t bytes, uint64_t t0);

/* The frame of every traced I/O call: when tracing is off, or `traced` is
 * false (a wait that cannot block), the call alone; else `setup` (what the
 * call overwrites and its record needs, kept first), the call timed from
 * t0_, its result in rc_ and its errno in saved_ for `after` (the
 * statements that record it), errno kept.  One frame for io.c, io_wait.c
 * and io_stdio.c's descriptor calls. */
#define IO_TIMED_SETUP_IF(traced, setup, call, after)                         \
	do {                                                                  \
		if (!(traced) || !io_tracing())                               \
			return call;                                          \
		setup;                                                        \
		uint64_t t0_ = tally__now();                                  \
		__typeof__(call) rc_ = call;                                  \
		int saved_ = errno;                                           \
		after;                                                        \
		errno = saved_;                                               \
		return rc_;                                                   \
	} while (0)

/* The same with nothing to keep before the call. */
#define IO_TIMED_IF(traced, call, after) IO_TIMED_SETUP_IF(traced, (void)0, call, after)

/* The body of an interposer of a call on descriptor fd: the call, timed and
 * noted as `op` moving `bytes` (an expression of rc_ and saved_). */
#define IO_FD_CALL(op, fd, call, bytes) \
	IO_TIMED_IF(1, call, io_note(TRACE_CALLER(), op, fd, bytes, t0_))

/* Bytes that belong to the call just noted (its stack `stack_id`) but not to
 * its op or file: the source of a transfer (sendfile: the write is the call,
 * the read of the source rides on it), or the bytes inline getc/putc moved
 * before a stdio call.  No call is counted and no time (EXP_IO_SAME_CALL). */
void io_note_same(uint32_t stack_id, uint16_t op, int fd, int64_t bytes, uint64_t t0);

/* A one-character call on stream `key` (FILE *) from `at`: joins the
 * thread's run if it is the same call site, stream and op, else ends it and
 * starts one.  `bytes` >= 0 (failures go through io_note). */
void io_one(const void *key, struct trace_caller at, uint16_t op, int fd, uint64_t bytes,
	    uint64_t t0);

/* Write the thread's pending run and end it. */
void io_run_end(void);

/* A call on descriptor fd's stream (a file or a terminal, io_stdio.c) from
 * `at`, started at t0, whose `bytes` (>= 0) stayed in the stream's buffer:
 * added to the thread's sum for its stack, fd and op (io_buffered.c),
 * written as one record (EXP_IO_BUFFERED) by io_buffered_flush.  false if
 * it could not be (then the caller records the call as an event). */
bool io_buffered(struct trace_caller at, uint16_t op, int fd, uint64_t bytes, uint64_t t0);

/* Write the thread's sums of fd (-1: all): a call on fd reached the
 * kernel (io_note), the thread ends, the process exits. */
void io_buffered_flush(int fd);

/* Record that `fd` names `path` (made absolute if relative) from `since_ns`
 * (0: now), or, with a NULL path, whatever /proc says it names. */
void io_name_fd(int fd, const char *path, uint64_t since_ns);

/* io_name_fd(fd, NULL, since_ns) unless `fd` has a name already. */
void io_name_unnamed(int fd, uint64_t since_ns);

/* `fd` was closed (or [first, last] were): its name is forgotten. */
void io_fd_closed(int first, int last);
/* How many times a descriptor was closed or replaced (io_fd_closed) in the
 * process: what was learnt of a descriptor's kind holds while it stays. */
uint32_t io_fd_changes(void);

/* `fd`, just read or written (the call started at since_ns): if it is a
 * pipe, FIFO, connected socket or eventfd whose flow was not yet recorded
 * since it was named, record it (an FD_FLOW record: io_flow.c). */
void io_flow_note(int fd, uint64_t since_ns);

/* Datagram socket fd is sending to `to` (sendto, sendmsg): if that is a new
 * port, its flow is looked up again at the call's note, so that its writes
 * go into the channel of that port. */
struct sockaddr;
void io_flow_dest(int fd, const struct sockaddr *to, unsigned int len);

/* [first, last] were closed or named anew: their flows are forgotten. */
void io_flow_forget(int first, int last);

#endif
