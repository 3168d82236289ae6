/* SPDX-License-Identifier: MIT
 *
 * cli_load.h — what report, export and annotate share: loading experiments
 * and building the model with the common filters (--thread, --time).
 */
#ifndef TALLY_CLI_LOAD_H
#define TALLY_CLI_LOAD_H

#include "format/exp_data.h"
#include "model/model.h"

struct cli_input {
	const char **paths;          /* experiments named on the command line */
	size_t npaths;
	uint32_t tids[256];
	size_t ntids;
	const char *time_arg;        /* --time FROM-TO: seconds or marker names */
	bool has_time;
	uint64_t from_ns, to_ns;
	bool show_collector;
	const char *process;         /* --process */
	struct exp_experiment *exps;
	size_t nexps;
	struct model model;
};

/* Parse a filter option shared by the analysis commands; returns 1 if `opt`
 * (with `arg`) was one, 0 if not, -1 on a bad value (message printed). */
int cli_input_option(struct cli_input *in, const char *cmd, const char *opt, const char *arg);

/* Load every experiment and build the model.  Returns 0 or CLI_FATAL
 * (message printed). */
int cli_input_load(struct cli_input *in, const char *cmd);
void cli_input_free(struct cli_input *in);

#endif
