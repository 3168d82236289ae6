/* SPDX-License-Identifier: MIT
 *
 * tally.h — the small API a program may call while `tally record` profiles
 * it.  Link with -ltally (build/lib/libtally.so).  Run without tally, every
 * function does nothing and returns 0, so the calls can stay in production
 * code.
 */
#ifndef TALLY_H
#define TALLY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if this process is being recorded by tally, else 0. */
int tally_collecting(void);

/* Stop recording clock samples and traced events in every thread of this
 * process, until tally_resume().  The CPU time that passes meanwhile is not
 * counted anywhere; the overview and the timeline show the gap.  Returns 1
 * if recording was on (by these two calls: `tally record --delay`, a toggle
 * signal or `--control` may also hold it off). */
int tally_pause(void);
int tally_resume(void);

/* Note a named point in time (a phase, a request) in the experiment's log:
 * `tally report` lists the markers with their times, and `--time` selects
 * the stretch between two of them. */
void tally_marker(const char *name);

/* Dynamically generated code (a JIT, code copied into an executable page):
 * without this, its time shows as <Unknown>.  tally_func_load names the
 * `size` bytes at `addr` `name` from now on, and copies them into the
 * experiment, so that `tally annotate --disasm` shows them after the
 * process is gone.  `lines` (or NULL) maps the code to source lines: pairs
 * { offset, line }, offsets ascending, each starting the code of its line,
 * ended by a pair whose line is 0.  tally_func_unload says the code at
 * `addr` is gone (its address may be reused).  Call them in the program's
 * normal course (not from a signal handler).  Return 0 if recorded.
 * (A JIT that writes /tmp/perf-PID.map or a jitdump file is read by itself:
 * see docs/structure.md.) */
struct tally_line {
	unsigned int offset;
	unsigned int line;
};
int tally_func_load(const char *name, const void *addr, size_t size, const struct tally_line *lines);
int tally_func_unload(const void *addr);

#ifdef __cplusplus
}
#endif

#endif
