/* SPDX-License-Identifier: MIT
 *
 * cli.h — the `tally` subcommands and what they share.
 *
 * main.c dispatches `tally CMD ARGS...` to cmd_CMD (like perf.c's command
 * table).  Only src/cli/ exits; the commands return the process exit status:
 *   0 success, 1 some input was bad but a result was produced,
 *   2 fatal error (a one-line message was printed), 64 usage error;
 * `tally record` returns the target's status instead (128+N for signal N,
 * 126/127 when it could not be run).
 */
#ifndef TALLY_CLI_H
#define TALLY_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLI_OK 0
#define CLI_PARTIAL 1
#define CLI_FATAL 2
#define CLI_USAGE 64

struct cli_opt;

/* The command table (cli_commands.c): main.c dispatches through it, the
 * completion (cli_complete.c) and --help list it. */
struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct cli_opt *(*options)(size_t *n);   /* its option table */
	const char *help;
};
extern const struct cli_command cli_commands[];
extern const size_t cli_ncommands;

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_gprof(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_gather(int argc, char **argv);
int cmd_control(int argc, char **argv);
/* Each command's option table: its rows, *n their count. */
const struct cli_opt *cmd_record_options(size_t *n);
const struct cli_opt *cmd_report_options(size_t *n);
const struct cli_opt *cmd_export_options(size_t *n);
const struct cli_opt *cmd_annotate_options(size_t *n);
const struct cli_opt *cmd_gprof_options(size_t *n);
const struct cli_opt *cmd_check_options(size_t *n);
const struct cli_opt *cmd_html_options(size_t *n);
const struct cli_opt *cmd_diff_options(size_t *n);
const struct cli_opt *cmd_gather_options(size_t *n);
const struct cli_opt *cmd_control_options(size_t *n);

/* `tally __complete CMD PREV CUR` (cli_complete.c): the words bash may
 * complete CUR with, one a line, or one of @files, @dirs, @commands, @none
 * for the shell to do it.  Returns the exit status. */
int cli_complete(int argc, char **argv);
/* `tally __man PAGE PART` (cli_man.c): the parts of a man page made from
 * the tables, in roff, for scripts/man.sh. */
int cli_man(int argc, char **argv);

/* Print "tally CMD: message" on stderr (one line).  These helpers and the
 * two below live in cli_msg.c, under the commands. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_warn(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Directory holding libtally-*.so, next to the tally binary. */
const char *cli_lib_dir(void);

/* After a run: archive the experiment's own load objects by build-id
 * (cli_archive.c); rewrite the record files of ended processes densely
 * (cli_compact.c). */
void cli_archive(const char *expdir);
void cli_compact(const char *expdir);
/* One line on stderr naming the threads the collector could not sample,
 * one naming the exec'd programs it could not profile (cli_unsampled.c);
 * nothing if there were none. */
void cli_unsampled_warn(const char *expdir);

/* The room an experiment takes (cli_space.c).  cli_space_parse: -L's SIZE
 * (MiB, or with k/M/G; "unlimited": 0) into bytes, 0 or -1.
 * cli_space_check: before the program runs, refuse a file system already
 * full (one line printed, -1), and turn a *limit < 0 into the default (half
 * the free space, at most 2 GiB).  cli_space_report: after the run, one
 * line on stderr, naming the experiment `name` (the user's path; `dir` may
 * be a /proc/self/fd path that reaches it), if anything was lost (no space, the size limit, reentry,
 * broken unwinds, threads that were not sampled), with what to do;
 * cli_space_full: is the file system (nearly) full now, so that compacting
 * and archiving would only fail? */
int cli_space_parse(const char *s, int64_t *bytes);
int cli_space_check(const char *dir, int64_t *limit);
bool cli_space_full(const char *dir);
void cli_space_report(const char *dir, const char *name, uint32_t hz, int64_t limit, bool full);

/* What a process's missing file (exp_proc.missing: log.txt, maps.dat,
 * stacks.dat) costs its report, in words (cli_load.c); report and check
 * say the same. */
const char *cli_missing_cost(const char *name);

/* Flush and check stdout; returns CLI_FATAL (with a message) if it failed. */
int cli_finish_stdout(const char *cmd, int rc);

#endif
