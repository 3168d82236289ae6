/* SPDX-License-Identifier: MIT
 *
 * cli_outside.c — `tally record`'s side of the outside mode (cli_outside.h).
 *
 * A statically linked program has no dynamic loader, so no collector can be
 * preloaded into it, and a Go program without cgo is one whose runtime sets
 * its signal handlers by its own system calls (ELF_GO_OUTSIDE_WHY): tally
 * samples either from outside with perf events (src/outside/).  The record options that need the collector (or a
 * tracer) inside the program are the rows of cli_record_opts.c marked so:
 * each is refused before the program starts, with one line naming it.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cli_kernel.h"
#include "cli/cli_outside.h"
#include "outside/out.h"

int cli_outside_check(const struct record_opts *o, const char *what)
{
	for (size_t r = 0; r < cli_nrecord_opts; r++) {
		unsigned needs = cli_record_opts[r].outside;
		if (!(o->given >> r & 1) || needs == CLI_REC_OUTSIDE || (needs == CLI_REC_INSIDE_RUN && o->pid))
			continue;
		char name[40], taken[256];
		cli_record_opt_name(r, name, sizeof(name));
		cli_record_opts_list(taken, sizeof(taken), false, CLI_REC_OUTSIDE, " ");
		cli_error("record", "%s: %s: %s needs tally's collector inside the program, which the "
			  "outside mode does not load (it samples the clock from outside, and takes %s%s; "
			  "docs/static.md)", name, what, name, taken,
			  o->pid ? "" : needs == CLI_REC_INSIDE_RUN ? "; with -p, --duration too" : "");
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
				      const struct record_opts *o, struct cli_kernel *kern, const char *mode_why)
{
	struct out_options oo = {
		.dir = dir,
		.mode_why = mode_why,
		.hz = o->launch.hz,
		.max_frames = o->launch.max_frames ? o->launch.max_frames : EXP_MAX_FRAMES,
		.limit_bytes = o->launch.limit_bytes,
		.kernel_chain = kern ? cli_kernel_chain : NULL,
		.kernel_switch = kern ? cli_kernel_switch_chain : NULL,
		.kernel_arg = kern,
		.states = o->launch.states,
	};
	char why[512];
	struct out_session *s = attach_pid ? out_session_attach(attach_pid, &oo, why, sizeof(why))
					   : out_session_launch(child, &oo, why, sizeof(why));
	if (!s)
		cli_error("record", "%s: outside mode: %s", dir, why);
	return s;
}
