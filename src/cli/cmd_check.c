/* SPDX-License-Identifier: MIT
 *
 * cmd_check.c — `tally check EXP...`: verify experiments and list what is
 * wrong with them (cf. Redis's redis-check-rdb).
 *
 * Every process's files are read as `tally report` reads them, with a hook
 * that prints each damaged place (file, offset, cause, bytes skipped); then
 * what follows from the damage (stacks cut from their lost parents, events
 * whose stack was never written) and what was skipped as unknown.  One
 * summary line per experiment.  A file the data needs that is missing or
 * cannot be read is a problem, as `tally report` (partial, exit 1) and the
 * other analysis commands take it.  Exit status: 0 every experiment is sound,
 * 1 something is wrong (listed), 2 a fatal error (out of memory), 64 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "format/exp_data.h"

#define CMD "check"

enum { OPT_HELP = 1 };

static const struct cli_opt options[] = {
	{ "help", 'h', CLI_ARG_NONE, OPT_HELP, NULL, "this help" },
};

const struct cli_opt *cmd_check_options(size_t *n)
{
	*n = CLI_NOPTS(options);
	return options;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: tally check EXP...\n"
		   "  read every file of each experiment and list what cannot be read: the\n"
		   "  file, the offset, the cause and the bytes skipped (`tally report`\n"
		   "  reports the rest of a damaged experiment, and exits 1)\n"
		   "exit status: 0 sound, 1 something is wrong (listed), 2 fatal, 64 usage\n");
	cli_args_help(f, options, CLI_NOPTS(options));
}

/* The hook: one line per damaged place. */
static void print_place(void *arg, const char *path, size_t offset, uint64_t bytes, const char *cause)
{
	(void)arg;
	if (offset == EXP_DAMAGE_WHOLE_FILE)
		printf("%s: %s\n", path, cause);
	else
		printf("%s: at 0x%zx: %s (%llu bytes skipped)\n", path, offset, cause,
		       (unsigned long long)bytes);
}

/* Check one experiment; returns CLI_OK, CLI_PARTIAL (problems listed) or
 * CLI_FATAL. */
static int check_one(const char *path)
{
	struct exp_experiment e;
	struct exp_error err;
	uint64_t problems = 0, samples = 0, stacks = 0, events = 0;

	int rc = exp_experiment_load_with(&e, path, &err, print_place, NULL);
	if (rc == -ENOMEM) {
		cli_error(CMD, "%s", err.msg);
		exp_experiment_free(&e);
		return CLI_FATAL;
	}
	if (rc) {
		printf("%s\n%s: cannot be read\n", err.msg, path);
		exp_experiment_free(&e);
		return CLI_PARTIAL;
	}
	for (size_t i = 0; i < e.nprocs; i++) {
		const struct exp_proc *p = &e.procs[i];
		problems += p->damage.places;
		if (p->cut_stacks) {
			printf("%s: %zu stacks lost their outer frames with damaged records (shown truncated)\n",
			       p->dir, p->cut_stacks);
			problems++;
		}
		if (p->missing_stacks) {
			printf("%s: %zu samples name stacks that were never written (shown as <Unknown>)\n",
			       p->dir, p->missing_stacks);
			problems++;
		}
		if (p->missing) {
			printf("%s/%s: missing: %s\n", p->dir, p->missing, cli_missing_cost(p->missing));
			problems++;
		}
		if (p->newer_part) {
			printf("%s\n", p->newer_part);
			problems++;
		}
		if (p->unknown_records)
			printf("%s: %zu records of types this tally does not know, skipped (a newer "
			       "writer?)\n", p->dir, p->unknown_records);
		if (!p->end_ns && !p->lineage[0])
			printf("%s: no end recorded (still running, or killed)\n", p->dir);
		samples += p->nsamples;
		events += p->nheap + p->nsync + p->nio;
		for (size_t h = 0; h < p->nheap_sums; h++)    /* format 5: allocations summed */
			events += p->heap_sums[h].count;
		for (uint32_t s = 0; s < p->nstacks; s++)
			stacks += p->stacks[s].pcs != NULL;
	}
	if (e.lost_procs) {          /* as `tally report` warns (cli_load.c) */
		printf("%s: %zu process%s could not be read, left out (%s)\n", path, e.lost_procs,
		       e.lost_procs > 1 ? "es" : "", e.lost_why ? e.lost_why : "?");
		problems += e.lost_procs;
	}
	if (problems)
		printf("%s: %llu problem%s\n", path, (unsigned long long)problems, problems == 1 ? "" : "s");
	else
		printf("%s: sound: %zu process%s, %llu samples, %llu traced events, %llu stacks\n", path,
		       e.nprocs, e.nprocs == 1 ? "" : "es", (unsigned long long)samples,
		       (unsigned long long)events, (unsigned long long)stacks);
	exp_experiment_free(&e);
	return problems ? CLI_PARTIAL : CLI_OK;
}

int cmd_check(int argc, char **argv)
{
	struct cli_args a;
	const char *val;
	const char **paths = calloc((size_t)argc + 1, sizeof(*paths));
	size_t npaths = 0;
	int id, rc = CLI_OK;

	if (!paths) {
		cli_error(CMD, "out of memory");
		return CLI_FATAL;
	}
	cli_args_init(&a, CMD, argc, argv, options, CLI_NOPTS(options));
	while ((id = cli_args_next(&a, &val)) != CLI_ARGS_END) {
		if (id == CLI_ARGS_OPERAND) {
			paths[npaths++] = val;
		} else if (id == OPT_HELP) {
			usage(stdout);
			free(paths);
			return cli_finish_stdout(CMD, CLI_OK);
		} else {
			free(paths);
			return CLI_USAGE;
		}
	}
	if (!npaths) {
		cli_error(CMD, "no experiment named (tally check EXP...)");
		free(paths);
		return CLI_USAGE;
	}
	for (size_t i = 0; i < npaths && rc != CLI_FATAL; i++) {
		int one = check_one(paths[i]);
		if (one > rc)
			rc = one;
	}
	free(paths);
	return cli_finish_stdout(CMD, rc);
}
