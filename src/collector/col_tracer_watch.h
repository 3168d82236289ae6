/* SPDX-License-Identifier: MIT
 *
 * col_tracer_watch.h — when a --states switch signal should ask whether a
 * tracer attached from outside (strace -p, gdb -p).
 *
 * Under such a tracer each delivery of the switch SIGTRAP stops the
 * thread, the stop is a switch, which sends the next SIGTRAP: the thread
 * runs nothing but our handler, each time sent while SIGTRAP was blocked
 * (async) and each time interrupting the same program pc (the handler's
 * return restores it, and the next signal is taken there at once).  Other
 * async signals (a switch inside a handler of ours or inside a program
 * handler that blocks everything) come at pcs the program moves through.
 * So the tracer is asked (a /proc read, about 20 us) only at the
 * COL_TRACER_WATCH_REPEATS-th async signal in a row at one pc, and the
 * count starts again after each question: at most one read per that many
 * blocked signals, whatever the program does.
 */
#ifndef TALLY_COL_TRACER_WATCH_H
#define TALLY_COL_TRACER_WATCH_H

#include <stdbool.h>
#include <stdint.h>

enum { COL_TRACER_WATCH_REPEATS = 3 };

struct col_tracer_watch {
	uint64_t pc;            /* the interrupted pc of the last async signal */
	uint32_t repeats;       /* async signals in a row at it */
};

/* A switch signal, `async` (sent while blocked) at interrupted `pc`: should
 * the tracer be asked now?  Sigsafe: the thread's own watch. */
static inline bool col_tracer_watch_sigsafe(struct col_tracer_watch *w, bool async, uint64_t pc)
{
	if (!async) {
		w->repeats = 0;
		return false;
	}
	if (w->repeats == 0 || w->pc != pc) {
		w->pc = pc;
		w->repeats = 1;
	} else {
		w->repeats++;
	}
	if (w->repeats < COL_TRACER_WATCH_REPEATS)
		return false;
	w->repeats = 0;
	return true;
}

#endif
