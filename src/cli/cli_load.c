/* SPDX-License-Identifier: MIT
 *
 * cli_load.c — loading experiments and building the model for the analysis
 * commands (see cli_load.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_load.h"
#include "symbols/sym.h"

static const char *warn_cmd = "report";

static void on_sym_warning(const char *msg)
{
	cli_warn(warn_cmd, "%s", msg);
}

static bool parse_seconds(const char *s, uint64_t *ns, const char **end)
{
	char *e;
	double v = strtod(s, &e);

	if (e == s || v < 0)
		return false;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	*end = e;
	return true;
}

int cli_input_option(struct cli_input *in, const char *cmd, const char *opt, const char *arg)
{
	if (!strcmp(opt, "--thread")) {
		for (const char *p = arg; *p;) {
			char *e;
			unsigned long tid = strtoul(p, &e, 10);
			if (e == p || (*e && *e != ',') || in->ntids >= 256) {
				cli_error(cmd, "--thread %s: expected thread ids separated by commas", arg);
				return -1;
			}
			in->tids[in->ntids++] = (uint32_t)tid;
			p = *e ? e + 1 : e;
		}
		return 1;
	}
	if (!strcmp(opt, "--process")) {
		in->process = arg;
		return 1;
	}
	if (!strcmp(opt, "--time")) {
		const char *e;
		in->has_time = true;
		in->to_ns = UINT64_MAX;
		if (!parse_seconds(arg, &in->from_ns, &e) || *e != '-' ||
		    (e[1] && (!parse_seconds(e + 1, &in->to_ns, &e) || *e)) || in->to_ns <= in->from_ns) {
			cli_error(cmd, "--time %s: expected FROM-TO in seconds since the start (e.g. 0.5-2)", arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

int cli_input_load(struct cli_input *in, const char *cmd)
{
	struct exp_error err;
	char msg[512];

	warn_cmd = cmd;
	sym_set_warning_handler(on_sym_warning);
	if (!in->npaths) {
		cli_error(cmd, "no experiment named (tally %s EXP...)", cmd);
		return CLI_USAGE;
	}
	in->exps = calloc(in->npaths, sizeof(*in->exps));
	if (!in->exps)
		return CLI_FATAL;
	for (size_t i = 0; i < in->npaths; i++) {
		if (exp_experiment_load(&in->exps[i], in->paths[i], &err)) {
			fflush(stdout);
			fprintf(stderr, "tally %s: %s\n", cmd, err.msg);
			in->nexps = i + 1;
			return CLI_FATAL;
		}
		in->nexps = i + 1;
	}
	struct model_options mo = {
		.tids = in->tids, .ntids = in->ntids, .has_time = in->has_time,
		.from_ns = in->from_ns, .to_ns = in->to_ns, .keep_tally_frames = in->show_collector,
		.process = in->process,
	};
	if (model_build(&in->model, in->exps, in->nexps, &mo, msg, sizeof(msg))) {
		cli_error(cmd, "%s", msg);
		return CLI_FATAL;
	}
	if (in->process && !in->model.nprocs) {
		cli_error(cmd, "--process %s: no such process in the experiment (see --processes)",
			  in->process);
		return CLI_FATAL;
	}
	return 0;
}

void cli_input_free(struct cli_input *in)
{
	model_free(&in->model);
	for (size_t i = 0; i < in->nexps; i++)
		exp_experiment_free(&in->exps[i]);
	free(in->exps);
	sym_objects_free();
}
