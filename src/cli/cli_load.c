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

/* One end of --time: seconds since the start, or the name of a marker
 * (tally_marker) in the first experiment's founder log. */
static bool parse_end(const char *s, size_t len, const struct exp_experiment *e, uint64_t *ns)
{
	char buf[256], *end;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	double v = strtod(buf, &end);
	if (end != buf && !*end && v >= 0) {
		*ns = (uint64_t)(v * 1e9 + 0.5);
		return true;
	}
	const struct exp_proc *p = &e->procs[0];
	for (size_t i = 0; i < p->nlog; i++) {
		const char *sp = strchr(p->log[i].value, ' ');
		if (strcmp(p->log[i].key, "marker") || !sp || strcmp(sp + 1, buf))
			continue;
		uint64_t t = strtoull(p->log[i].value, NULL, 10);
		*ns = t > p->start_ns ? t - p->start_ns : 0;
		return true;
	}
	return false;
}

/* Resolve --time FROM-TO once the experiments are loaded. */
static int resolve_time(struct cli_input *in, const char *cmd)
{
	const char *a = in->time_arg, *dash = strchr(a, '-');

	in->has_time = true;
	in->from_ns = 0;
	in->to_ns = UINT64_MAX;
	if (!dash || !parse_end(a, (size_t)(dash - a), &in->exps[0], &in->from_ns) ||
	    (dash[1] && !parse_end(dash + 1, strlen(dash + 1), &in->exps[0], &in->to_ns)) ||
	    in->to_ns <= in->from_ns) {
		cli_error(cmd, "--time %s: expected FROM-TO, each in seconds since the start or a marker name", a);
		return -1;
	}
	return 0;
}

int cli_input_option(struct cli_input *in, const char *cmd, int id, const char *arg)
{
	if (id == CLI_OPT_THREAD) {
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
	if (id == CLI_OPT_PROCESS) {
		in->process = arg;
		return 1;
	}
	if (id == CLI_OPT_TIME) {
		in->time_arg = arg;
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
	if (in->time_arg && resolve_time(in, cmd))
		return CLI_USAGE;
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

void cli_no_such_function(const char *cmd, const struct model *m, const char *name)
{
	uint32_t ids[5];
	size_t n = model_func_suggest(m, name, ids, 5);
	char list[2048] = "", label[4096];
	size_t len = 0;

	for (size_t i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s'%s'", i ? ", " : "",
					model_func_label(m, ids[i], label, sizeof(label)));
	if (n)
		cli_error(cmd, "no function named '%s' in the profile; nearest: %s", name, list);
	else
		cli_error(cmd, "no function named '%s' in the profile (see --functions)", name);
}

void cli_input_free(struct cli_input *in)
{
	model_free(&in->model);
	for (size_t i = 0; i < in->nexps; i++)
		exp_experiment_free(&in->exps[i]);
	free(in->exps);
	sym_objects_free();
}
