/* SPDX-License-Identifier: MIT
 *
 * exp_thread_lives.h — threads.dat's records sorted into threads' lives.
 *
 * A thread id names one thread at a time, but two in a run when the kernel
 * gives a gone thread's id to a new one (a raw clone's thread soon after
 * another's end, any thread after a pid wrap): each THREAD_START begins a
 * life, and the records after it are that life's: END and NAME by their
 * time; SCHED and SWITCHES (written after the END) the life whose END came
 * last before them; COST with its id's END just before it in the file,
 * else the first life of its id with an END and no COST yet.  An END
 * after the end of the life it falls in lost its START (a size limit, a
 * damaged block): a life of its own (start_lost), holding the records
 * after the life before it up to that END, its start the earliest time
 * seen of its own (its END, a NAME, a sample less its CPU, a wait from its
 * request, an I/O call), not before the life before's end; a time between the life before's end
 * and that start is its too (exp_thread_life).  Lives are found by binary
 * search in p->thread_order,
 * sorted by (tid, start), built once.  A thread's records
 * are not in time order in the file (a staging block comes before the
 * copies of earlier ones), so the loader hands them here as it reads them
 * and they are placed once every file is read.
 */
#ifndef TALLY_EXP_THREAD_LIVES_H
#define TALLY_EXP_THREAD_LIVES_H

#include <stddef.h>
#include <stdint.h>

#include "format/exp_data.h"

struct exp_thread_rec;

/* The records of one process, in file order. */
struct exp_thread_lives {
	struct exp_thread_rec *recs;
	size_t n, cap;
};

/* Keep a copy of record `rec` (`len` bytes) of type `type` (EXP_REC_THREAD_*,
 * checked by the caller).  -ENOMEM without memory. */
int exp_thread_lives_add(struct exp_thread_lives *tl, uint32_t type, const void *rec, uint32_t len);

/* Place every record kept into p->threads (grown from *cap): a life per
 * THREAD_START (a copy of one already read, the same id and time, is the
 * same life), the rest into the life of their id that had started by their
 * time.  -ENOMEM without memory.  tl is emptied either way. */
int exp_thread_lives_place(struct exp_proc *p, size_t *cap, struct exp_thread_lives *tl);

/* Thread tid's life at time `at` in p: the last of its lives started by
 * then (or, after that one's end, the next if its START was lost), else
 * its first; NULL if p has none of that id.  O(log threads)
 * with p->thread_order, a scan without (a p made by hand). */
const struct exp_thread_ev *exp_thread_life(const struct exp_proc *p, uint32_t tid, uint64_t at);

#endif
