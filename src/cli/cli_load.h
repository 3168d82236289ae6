/* SPDX-License-Identifier: MIT
 *
 * cli_load.h — what report, export and annotate share: loading experiments
 * and building the model with the common filters (--thread, --time).
 */
#ifndef TALLY_CLI_LOAD_H
#define TALLY_CLI_LOAD_H

#include "cli/cli_args.h"
#include "format/exp_data.h"
#include "model/model.h"

struct cli_input {
	const char **paths;          /* experiments named on the command line (owned) */
	size_t npaths, cap_paths;
	uint32_t tids[256];
	size_t ntids;
	const char *time_arg;        /* --time FROM-TO: seconds or marker names */
	bool has_time;
	uint64_t from_ns, to_ns;
	bool show_collector;
	bool partial;                /* some data could not be read: exit CLI_PARTIAL */
	const char *process;         /* --process */
	enum model_view view;        /* --view user|expert|machine */
	int32_t ranks[256];          /* --rank: only these ranks of a job */
	size_t nranks;
	bool has_job;                /* an MPI job was named (exp_job.h) */
	bool all_processes;          /* keep a job's launcher processes (--processes) */
	bool match_messages;         /* match an MPI job's sends to receives (--messages) */
	bool raw_clocks;             /* --raw-clocks: no rank's times put on rank 0's clock */
	int32_t job_size;            /* its highest rank + 1 */
	bool keep_events;            /* the command shows time (model_options.keep_events) */
	const char *object, *hide_object, *symbol;   /* --object, --hide-object, --symbol */
	const char *data_object;     /* --data-object */
	bool no_args;                /* --no-args: short names */
	bool no_inline;              /* --no-inline: no inlined frames */
	bool no_kernel;              /* --no-kernel: no kernel frames */
	struct exp_experiment *exps; /* a job's ranks each count as one */
	size_t nexps;
	struct model model;
};

/* The filter options every analysis command takes: put CLI_INPUT_OPTS in its
 * option table and pass their ids to cli_input_option. */
enum { CLI_OPT_THREAD = 1000, CLI_OPT_TIME, CLI_OPT_PROCESS, CLI_OPT_RANK, CLI_OPT_VIEW, CLI_OPT_OBJECT,
       CLI_OPT_HIDE_OBJECT, CLI_OPT_SYMBOL, CLI_OPT_NO_ARGS, CLI_OPT_NO_INLINE, CLI_OPT_NO_KERNEL,
       CLI_OPT_RAW_CLOCKS, CLI_OPT_DATA_OBJECT };
#define CLI_INPUT_OPTS                                                                     \
	{ "thread", 0, CLI_ARG_REQUIRED, CLI_OPT_THREAD, "TID[,TID]", "only these threads" }, \
	{ "time", 0, CLI_ARG_REQUIRED, CLI_OPT_TIME, "FROM-TO",                             \
	  "only events between FROM and TO seconds after the start\n"                       \
	  "(or between two markers, by name)" },                                           \
	{ "process", 0, CLI_ARG_REQUIRED, CLI_OPT_PROCESS, "P",                             \
	  "only process P (pid, lineage such as _f1_x1, or name)" },                      \
	{ "rank", 0, CLI_ARG_REQUIRED, CLI_OPT_RANK, "N[,N]",                               \
	  "only these ranks of an MPI job" },                                              \
	{ "view", 0, CLI_ARG_REQUIRED, CLI_OPT_VIEW, "user|expert|machine",                 \
	  "user (default): outlined parts and OpenMP bodies under the function\n"           \
	  "they came from, <OMP-*> for time in the runtime, <signal handler> for\n"     \
	  "signal frames; Java methods, the JVM's work in <JVM-System>; expert:\n"       \
	  "Java with the JVM's frames, and interpreted and compiled methods\n"           \
	  "apart; machine: the frames as recorded" },                                       \
	{ "object", 0, CLI_ARG_REQUIRED, CLI_OPT_OBJECT, "O",                               \
	  "only stacks with a frame in load object O (name or path)" },                    \
	{ "hide-object", 0, CLI_ARG_REQUIRED, CLI_OPT_HIDE_OBJECT, "O",                     \
	  "O's frames as one frame <O>, charged to their caller's call" },                 \
	{ "symbol", 0, CLI_ARG_REQUIRED, CLI_OPT_SYMBOL, "F", "only stacks through function F" }, \
	{ "data-object", 0, CLI_ARG_REQUIRED, CLI_OPT_DATA_OBJECT, "NAME",                  \
	  "only the clock samples that accessed data object NAME (record --data),\n"       \
	  "as --data-objects names it: a variable, a member {struct s}.m,\n"              \
	  "<Stack: f>, <Heap: ...>, <File: path>...; traced metrics unfiltered" },         \
	{ "no-args", 0, CLI_ARG_NONE, CLI_OPT_NO_ARGS, NULL,                                \
	  "C++ names without argument lists, templates elided (<...>)" },                  \
	{ "no-inline", 0, CLI_ARG_NONE, CLI_OPT_NO_INLINE, NULL,                            \
	  "no frames for inlined calls (DWARF): their time is the function\n"              \
	  "they were inlined into, as their lines are" },                                  \
	{ "no-kernel", 0, CLI_ARG_NONE, CLI_OPT_NO_KERNEL, NULL,                            \
	  "no kernel frames ([kernel]): their time is the system call's" },                \
	{ "raw-clocks", 0, CLI_ARG_NONE, CLI_OPT_RAW_CLOCKS, NULL,                          \
	  "an MPI job's ranks each on its own clock, as recorded (default:\n"               \
	  "on rank 0's, by the offsets measured at MPI_Init, docs/mpi.md)" }

/* Take filter option `id` (CLI_OPT_THREAD...) with its value, or an operand
 * (CLI_ARGS_OPERAND: an experiment to load); returns 1 if it was one, 0 if
 * not, -1 on a bad value or no memory (message printed). */
int cli_input_option(struct cli_input *in, const char *cmd, int id, const char *arg);

/* Name one more experiment to load; 0, or -1 when out of memory (said). */
int cli_input_add_path(struct cli_input *in, const char *cmd, const char *path);

/* Colour for text on stdout: a terminal, and NO_COLOR not set. */
bool cli_colour(void);
/* The width of the terminal on stdout ($COLUMNS if it says none), or 0
 * when stdout is no terminal. */
int cli_term_columns(void);

/* The --metric help: every metric of the table (cli_metrics.c). */
const char *cli_metrics_help(void);

/* A --metric list "M[,M...]" into out (room for MODEL_METRIC_COUNT); the
 * number parsed, or -1 on an unknown name (message printed: the names like
 * it, the metrics in's first experiment recorded (NULL: none named), and
 * every metric). */
int cli_metrics_parse(const char *cmd, const char *list, enum model_metric *out, const struct cli_input *in);

/* An --errors value (NULL: plain --errors) into its enum report_errors
 * (samples, the default, or bins); -1 on another (message printed). */
int cli_errors_parse(const char *cmd, const char *val);

/* Load every experiment and build the model.  A job (a directory of
 * rankN.exp) is read one rank at a time, each rank's events dropped once
 * they are in the model; its entries are shared by the ranks, and processes
 * that are no rank (the launcher) are left out unless --process names them.
 * Returns 0 or CLI_FATAL (message printed).  Damaged records, blocks or files
 * are skipped: one warning line names the first, and in->partial is set. */
int cli_input_load(struct cli_input *in, const char *cmd);
void cli_input_free(struct cli_input *in);

/* Were these metrics recorded (the options in the experiments' logs)?  Else
 * one line naming the first that was not and the option that records it;
 * CLI_FATAL.  0 if all were (a filter may still leave them empty). */
int cli_metrics_recorded(const char *cmd, const struct cli_input *in, const enum model_metric *ms, int n);

/* "tally CMD: no function named 'NAME' in the profile", with the nearest
 * names when some are near (a mistyped name). */
void cli_no_such_function(const char *cmd, const struct model *m, const char *name);

struct report_doc;
/* End a report document written to stdout: if a view failed (out of
 * memory), print why and return CLI_FATAL; else flush stdout and return
 * `rc` (or CLI_FATAL if that failed). */
int cli_doc_end(struct report_doc *d, const char *cmd, int rc);

#endif
