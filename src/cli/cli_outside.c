/* SPDX-License-Identifier: MIT
 *
 * cli_outside.c — `tally record`'s side of the outside mode (cli_outside.h).
 *
 * A statically linked program has no dynamic loader, so no collector can be
 * preloaded into it: tally samples it from outside with perf events
 * (src/outside/).  Tracing needs interposition (the tracers are preloaded
 * libraries), and the collector's per-thread options (--states, -c, -d)
 * run inside the program: those are refused before the program starts,
 * with one line.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cli_outside.h"
#include "outside/out.h"

int cli_outside_check(const struct record_opts *o, const char *what)
{
	const char *opt = o->launch.heap ? "-H" : o->launch.sync_ns != -1 ? "-s" : o->launch.io ? "-i"
			  : o->launch.mpi ? "-m" : NULL;

	if (opt) {
		cli_error("record", "%s: %s: tracing needs tally's libraries inside the program, and "
			  "it has no dynamic loader to load them (outside mode: clock profiling only; "
			  "docs/static.md)", opt, what);
		return -1;
	}
	opt = o->launch.states ? "--states" : o->ncounters ? "-c" : o->launch.data ? "-d"
	      : o->kernel ? "--kernel" : o->delay_s ? "--delay" : o->duration_s && !o->pid ? "--duration"
	      : o->launch.toggle_sig ? "--toggle-signal" : o->control ? "--control"
	      : o->psample_set ? "--process-samples" : NULL;
	if (opt) {
		cli_error("record", "%s: %s: not available in the outside mode yet (clock profiling "
			  "only; docs/static.md)", opt, what);
		return -1;
	}
	opt = o->delay_s ? "--delay" : o->duration_s ? "--duration" : o->launch.toggle_sig ? "--toggle-signal"
	      : o->control ? "--control" : NULL;
	if (opt) {
		cli_error("record", "%s: %s: not available in the outside mode yet (it records the "
			  "whole run; docs/static.md)", opt, what);
		return -1;
	}
	if (!o->launch.hz) {
		cli_error("record", "-F 0: %s: the outside mode records clock samples only, and -F 0 "
			  "asks for none", what);
		return -1;
	}
	return 0;
}

struct out_session *cli_outside_start(pid_t child, pid_t attach_pid, const char *dir,
				      const struct record_opts *o)
{
	struct out_options oo = {
		.dir = dir,
		.hz = o->launch.hz,
		.max_frames = o->launch.max_frames ? o->launch.max_frames : EXP_MAX_FRAMES,
		.limit_bytes = o->launch.limit_bytes,
	};
	char why[512];
	struct out_session *s = attach_pid ? out_session_attach(attach_pid, &oo, why, sizeof(why))
					   : out_session_launch(child, &oo, why, sizeof(why));
	if (!s)
		cli_error("record", "%s: outside mode: %s", dir, why);
	return s;
}
