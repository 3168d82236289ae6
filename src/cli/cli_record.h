/* SPDX-License-Identifier: MIT
 *
 * cli_record.h — what `tally record` (cmd_record.c) shares with its attaching
 * form `tally record -p PID` (cli_attach.c): the options, the experiment
 * directory, the log's lines.
 */
#ifndef TALLY_CLI_RECORD_H
#define TALLY_CLI_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "cli/cli_args.h"
#include "format/exp_events.h"
#include "format/exp_launch.h"

/* The options of `tally record`, one row each (cli_record_opts.c): the
 * option, and what the outside mode (a statically linked program, into
 * which nothing can be loaded: src/outside/, docs/static.md) does with it. */
#define CLI_REC_OUTSIDE 0          /* taken there too */
#define CLI_REC_INSIDE 1           /* needs tally's collector (or a tracer)
                                      inside the program: refused there */
#define CLI_REC_INSIDE_RUN 2       /* in a program tally runs, the collector
                                      does it (refused for a static one);
                                      with -p, tally does it itself */
/* ... and what `tally record -p PID` (attaching to a running process)
 * does with it. */
#define CLI_ATT_OK 0               /* taken */
#define CLI_ATT_TRACER 1           /* tracing: it interposes on calls the
                                      program bound before tally arrived */
#define CLI_ATT_RUN 2              /* only for a program tally runs: it
                                      starts with the run, a thread or the
                                      exec, or follows what the run creates */
struct cli_record_opt {
	struct cli_opt opt;
	unsigned outside;          /* CLI_REC_* */
	unsigned attach;           /* CLI_ATT_* */
};
extern const struct cli_record_opt cli_record_opts[];
extern const size_t cli_nrecord_opts;
/* The row whose option id (getopt's return) is `id`, or -1. */
int cli_record_opt_row(int id);
/* "-H", or "--states" for an option without a short name. */
void cli_record_opt_name(size_t row, char *buf, size_t len);
/* The first row whose option is in `given` (bit r: row r) and whose
 * attach column is `attach`, or -1. */
int cli_record_opts_unattachable(uint64_t given, unsigned attach);
/* The names of the options (but --help) whose `outside` column (or, with
 * attach_column, `attach` column) is `value`, `sep` between, into buf (cut
 * to fit); returns the length the whole list needs. */
size_t cli_record_opts_list(char *buf, size_t len, bool attach_column, unsigned value, const char *sep);

struct record_opts {
	const char *out;
	int64_t limit;             /* -L bytes; 0 none; -1 the default */
	struct exp_launch_options launch;   /* what the collector is told */
	long pid;                  /* -p: attach to this process; 0: run a program */
	double duration_s;         /* --duration; 0: until Ctrl-C (-p) or the end */
	double delay_s;            /* --delay; 0: none */
	const char *control;       /* --control fifo:PATH; NULL: none */
	bool psample_set;          /* --process-samples was given */
	struct exp_event counters[EXP_MAX_COUNTERS];   /* -c EVENT[/PERIOD] */
	int ncounters;
	char data_source[512];     /* --data: where the addresses come from, and why
	                              (cli_datasrc.c); the log's data.source */
	bool kernel;               /* --kernel: kernel call chains (off by default) */
	bool no_kernel;            /* --no-kernel: none (the default) */
	uint64_t given;            /* bit r: the option of row r was given */
};

/* The four below: cli_record_dir.c, under both ways of recording.
 * Root does not record into a directory any user may write that lacks the
 * sticky bit; 0, or -1 with the message printed. */
int cli_record_parent_safe(const char *path);
/* Create the experiment directory `out`, or the first unused tally.N.exp;
 * its name goes to path.  0, or -1 with a message printed. */
int cli_record_make_dir(const char *out, char *path, size_t len);
/* Remove an experiment directory that holds nothing yet (a failed start). */
void cli_record_remove_dir(const char *dir);
/* "key: value" line of an experiment's log.txt. */
void cli_log_line(FILE *log, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
uint64_t cli_now_ns(clockid_t id);
/* The log's "options:" line: the launch options as exp_launch_encode writes
 * them for the collector (TALLY_OPTIONS), read back with exp_launch_decode. */
void cli_log_options(FILE *log, const struct exp_launch_options *o);

/* `tally record -p PID` (cli_attach.c): exit status (0, 2 refused or failed). */
int cli_attach_record(const struct record_opts *o);

#endif
