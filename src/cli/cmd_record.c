/* SPDX-License-Identifier: MIT
 *
 * cmd_record.c — `tally record [OPTIONS] [--] PROGRAM [ARGS...]`.
 *
 * Creates the experiment directory, writes the head of its log, runs the
 * program with the collector preloaded (its own stdin, stdout and stderr),
 * waits for it, writes how it ended and the CPU time the kernel accounted to
 * it (wait4's rusage, descendants included) and exits with its status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_control.h"
#include "cli/cli_datasrc.h"
#include "cli/cli_events.h"
#include "cli/cli_kernel.h"
#include "cli/cli_outside.h"
#include "cli/cli_record.h"
#include "cli/cli_seccomp.h"
#include "cli/cli_target.h"
#include "format/exp_launch.h"
#include "format/exp_records.h"
#include "model/model.h"
#include "outside/out.h"

#define CMD "record"


static pid_t child_pid;

/* Print `list` after `indent`, wrapped before 80 columns at its spaces. */
static void wrap(FILE *f, const char *list, const char *indent)
{
	size_t col = 0;

	for (const char *p = list; *p;) {
		size_t w = strcspn(p, " ");
		if (col && col + 1 + w >= 80) {
			fputc('\n', f);
			col = 0;
		}
		col += (size_t)fprintf(f, "%s%.*s", col ? " " : indent, (int)w, p);
		p += w + (p[w] == ' ');
	}
	fputc('\n', f);
}

static void usage(FILE *f)
{
	size_t nopts;
	const struct cli_opt *opts = cmd_record_options(&nopts);
	char inside[512], run[256];

	fprintf(f,
		"usage: tally record [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"       tally record -p PID [--duration S] [OPTIONS]\n"
		"  run PROGRAM with tally's collector preloaded and record an experiment\n"
		"  (or attach to process PID); options (-c may be given several times):\n");
	cli_args_help(f, opts, nopts);
	fprintf(f,
		"Environment passed to the program: %s (the collector), %s,\n"
		"%s, %s, %s, %s, %s, %s; %s overrides\n"
		"where tally finds libtally-collector.so.\n",
		EXP_ENV_PRELOAD, EXP_ENV_EXP, EXP_ENV_OPTIONS,
		EXP_ENV_ROOT, EXP_ENV_LINEAGE, EXP_ENV_PID, EXP_ENV_FOUNDER, EXP_ENV_COUNTERS, EXP_ENV_LIB_DIR);
	cli_record_opts_list(inside, sizeof(inside), false, CLI_REC_INSIDE, ", ");
	cli_record_opts_list(run, sizeof(run), false, CLI_REC_INSIDE_RUN, ", ");
	fprintf(f,
		"A statically linked PROGRAM has no loader to preload the collector with, and\n"
		"the collector cannot keep its clock in a Go program without cgo, whose runtime\n"
		"sets its signal handlers by its own system calls.  Either (or -p PID of one) is\n"
		"sampled from outside with perf events (clock profiling, threads, descendants), and\n"
		"none of that environment is set (docs/static.md).  These options need the\n"
		"collector inside the program, and are refused for it:\n");
	wrap(f, inside, "  ");
	fprintf(f, "and for a PROGRAM tally runs (not with -p): %s.\n", run);
	cli_record_opts_list(inside, sizeof(inside), true, CLI_ATT_TRACER, ", ");
	cli_record_opts_list(run, sizeof(run), true, CLI_ATT_RUN, ", ");
	fprintf(f, "With -p (attaching to a running process), tracing is refused:\n");
	wrap(f, inside, "  ");
	fprintf(f, "and what starts with a run tally starts:\n");
	wrap(f, run, "  ");
}

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* Parse --toggle-signal's SIG: a name with or without "SIG", RTMIN+N,
 * RTMAX-N or a number.  Not one that cannot be caught (KILL, STOP), the
 * collector's own (PROF, TRAP) or a fault's (SEGV, BUS, ILL, FPE, SYS),
 * whose handler must be the program's.  0, or -1 with the message printed. */
static int parse_signal(const char *s, uint32_t *sig)
{
	const char *name = strncasecmp(s, "SIG", 3) ? s : s + 3;
	char *end;
	long n = strtol(s, &end, 10);

	if (end == s || *end) {
		n = 0;
		if (!strncasecmp(name, "RTMIN+", 6) || !strncasecmp(name, "RTMAX-", 6)) {
			long k = strtol(name + 6, &end, 10);
			if (!*end && end != name + 6)
				n = name[3] == 'I' || name[3] == 'i' ? SIGRTMIN + k : SIGRTMAX - k;
		} else if (!strcasecmp(name, "RTMIN") || !strcasecmp(name, "RTMAX")) {
			n = name[3] == 'I' || name[3] == 'i' ? SIGRTMIN : SIGRTMAX;
		}
		for (int k = 1; k < SIGRTMIN && !n; k++) {
			const char *abbrev = sigabbrev_np(k);
			if (abbrev && !strcasecmp(abbrev, name))
				n = k;
		}
	}
	if (n < 1 || n > SIGRTMAX) {
		cli_error(CMD, "--toggle-signal %s: no such signal (USR1, USR2, RTMIN+N, or a number)", s);
		return -1;
	}
	static const int refused[] = { SIGKILL, SIGSTOP, SIGPROF, SIGTRAP, SIGSEGV, SIGBUS,
				       SIGILL, SIGFPE, SIGSYS, SIGABRT };
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (n == refused[i]) {
			cli_error(CMD, "--toggle-signal %s: SIG%s %s (use USR1, USR2 or RTMIN+N)", s,
				  sigabbrev_np((int)n),
				  n == SIGKILL || n == SIGSTOP ? "cannot be caught"
				  : n == SIGPROF || n == SIGTRAP ? "is the collector's own"
								 : "is a fault's: its handler must be the program's");
			return -1;
		}
	*sig = (uint32_t)n;
	return 0;
}

/* Parse "-s [NS]": an optional duration such as 1000, 5us, 2ms. */
static bool parse_duration_ns(const char *s, int64_t *ns)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	if (end == s || v < 0)
		return false;
	if (!*end || !strcmp(end, "ns"))
		*ns = v;
	else if (!strcmp(end, "us"))
		*ns = v * 1000;
	else if (!strcmp(end, "ms"))
		*ns = v * 1000000;
	else
		return false;
	return true;
}

/* The job's directory when no -o is given: tally.job.ID.exp, ID the job's
 * as the launcher says (PMIx namespace, Open MPI's job id, Slurm's job and
 * step), or else the launcher's pid (the parent of every rank on a host). */
static void job_dir_name(char *path, size_t len)
{
	const char *ns = getenv("PMIX_NAMESPACE"), *ompi = getenv("OMPI_MCA_ess_base_jobid");
	const char *job = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");
	char id[128];

	if (ns && *ns)
		snprintf(id, sizeof(id), "%s", ns);
	else if (ompi && *ompi)
		snprintf(id, sizeof(id), "%s", ompi);
	else if (job && *job)
		snprintf(id, sizeof(id), "%s.%s", job, step ? step : "0");
	else
		snprintf(id, sizeof(id), "ppid%d", (int)getppid());
	for (char *c = id; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      *c == '.' || *c == '-'))
			*c = '_';
	snprintf(path, len, "tally.job.%s.exp", id);
}

/* Rank `rank` of an MPI job writes JOB/rankN.exp: JOB is -o's directory (or
 * tally.job.ID.exp), made by whichever rank comes first; rankN.exp must be
 * new. */
static int make_rank_dir(const char *out, int32_t rank, char *path, size_t len)
{
	char job[PATH_MAX];
	struct stat st;

	if (out)
		snprintf(job, sizeof(job), "%s", out);
	else
		job_dir_name(job, sizeof(job));
	if (cli_record_parent_safe(job) != 0)
		return -1;
	if (mkdir(job, 0755) != 0 && (errno != EEXIST || lstat(job, &st) != 0 || !S_ISDIR(st.st_mode))) {
		cli_error(CMD, "%s: cannot create the job's experiment: %s", job,
			  errno == EEXIST ? "not a directory" : strerror(errno));
		return -1;
	}
	/* Another rank made it (or someone else did: root does not record
	 * into another user's directory, which they could fill with links). */
	if (geteuid() == 0 && (lstat(job, &st) != 0 || st.st_uid != 0 || (st.st_mode & 022))) {
		cli_error(CMD, "%s: not recording as root into it: it belongs to uid %u or others may "
			  "write it (choose another -o)", job, (unsigned)st.st_uid);
		return -1;
	}
	snprintf(path, len, "%s/rank%d.exp", job, (int)rank);
	if (mkdir(path, 0755) != 0) {
		if (errno == EEXIST)
			cli_error(CMD, "%s: already exists: rank %d was recorded into %s before (choose "
				  "another -o name)", path, (int)rank, job);
		else
			cli_error(CMD, "%s: cannot create the experiment: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Close the log, checking that everything was written; 0, or -1 with errno. */
static int log_close(FILE *log)
{
	int failed = ferror(log), e = errno;

	if (fclose(log) != 0)
		return -1;
	errno = e ? e : EIO;
	return failed ? -1 : 0;
}

/* Open the log to append, made 0644 as the collector's files are (fopen's
 * 0666 would give it wider bits than the rest under a umask of 000);
 * NULL with errno. */
static FILE *log_append(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;

	if (!f && fd >= 0)
		close(fd);
	return f;
}

/* The log at DIR/log.txt opened to append a part of its head (its path in
 * path); NULL with the message printed. */
static FILE *head_log_open(const char *dir, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", dir, EXP_LOG_NAME);
	FILE *log = log_append(path);
	if (!log)
		cli_error(CMD, "%s: %s", path, strerror(errno));
	return log;
}

/* Close it: 0, or -1 with the message printed (the head is incomplete). */
static int head_log_close(FILE *log, const char *path)
{
	if (log_close(log) == 0)
		return 0;
	cli_error(CMD, "%s: %s", path, strerror(errno));
	return -1;
}

/* The head of the log, before the program runs.  0, or -1 (message
 * printed): without it the experiment cannot be read. */
static int write_log_head(const char *dir, const struct record_opts *o,
			  const struct cli_target *t, int argc, char **argv)
{
	char path[PATH_MAX + 16], host[256] = "", when[64];
	struct utsname u;
	time_t now = time(NULL);

	FILE *log = head_log_open(dir, path, sizeof(path));
	if (!log)
		return -1;
	gethostname(host, sizeof(host) - 1);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
	cli_log_line(log, "tally.format", "%d", EXP_FORMAT_VERSION);
	cli_log_line(log, "target", "%s", t->path);
	fprintf(log, "command:");
	for (int i = 0; i < argc; i++)
		fprintf(log, " %s", argv[i]);
	fputc('\n', log);
	cli_log_line(log, "host", "%s", host);
	if (uname(&u) == 0)
		cli_log_line(log, "kernel", "%s %s %s", u.sysname, u.release, u.machine);
	cli_log_line(log, "start", "%s", when);
	cli_log_line(log, "record.start.mono_ns", "%llu", (unsigned long long)cli_now_ns(CLOCK_MONOTONIC));
	cli_log_options(log, &o->launch);
	cli_log_line(log, "size-limit", "%lld", (long long)o->launch.limit_bytes);
	for (int i = 0; i < o->ncounters; i++)
		cli_log_line(log, "counter.requested", "%s/%llu", o->counters[i].name,
			     (unsigned long long)o->counters[i].period);
	if (o->launch.data && o->data_source[0])
		cli_log_line(log, "data.source", "%s", o->data_source);
	return head_log_close(log, path);
}

/* The seccomp filter the program starts under, as probed
 * (cli_seccomp.c), in the log's head; 0 or -1 */
static int log_seccomp(const char *dir, const char *why)
{
	char path[PATH_MAX + 16];

	FILE *log = head_log_open(dir, path, sizeof(path));
	if (!log)
		return -1;
	cli_log_line(log, "seccomp", "%s", why);
	return head_log_close(log, path);
}

/* The MPI rank and its job (exp_launch_job), in the log's head; 0 or -1
 * (message printed). */
static int log_rank(const char *dir, int32_t rank, const char *from)
{
	char path[PATH_MAX + 16];

	FILE *log = head_log_open(dir, path, sizeof(path));
	if (!log)
		return -1;
	struct exp_launch_job job;
	exp_launch_job(from, &job);
	cli_log_line(log, "rank", "%d", (int)rank);
	cli_log_line(log, "rank.from", "%s", from);
	for (size_t i = 0; i < job.n; i++)
		cli_log_line(log, job.key[i], "%s", job.value[i]);
	return head_log_close(log, path);
}

/* How the run ended, after it did; a failure is a warning (the records are
 * there, the report says the end is unknown). */
static void write_log_end(const char *dir, int status, const struct rusage *ru, uint64_t wall_ns)
{
	char path[PATH_MAX + 16], when[64];
	time_t now = time(NULL);

	snprintf(path, sizeof(path), "%s/%s", dir, EXP_LOG_NAME);
	FILE *log = log_append(path);
	if (!log) {
		cli_warn(CMD, "%s: %s (how the run ended is not recorded)", path, strerror(errno));
		return;
	}
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
	cli_log_line(log, "end", "%s", when);
	cli_log_line(log, "record.end.mono_ns", "%llu", (unsigned long long)cli_now_ns(CLOCK_MONOTONIC));
	cli_log_line(log, "wall_ns", "%llu", (unsigned long long)wall_ns);
	if (WIFEXITED(status))
		cli_log_line(log, "exit.status", "%d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		cli_log_line(log, "exit.signal", "%d %s%s", WTERMSIG(status), strsignal(WTERMSIG(status)),
			 WCOREDUMP(status) ? " (core dumped)" : "");
	cli_log_line(log, "rusage.user_ns", "%llu",
		 (unsigned long long)ru->ru_utime.tv_sec * 1000000000ull + (unsigned long long)ru->ru_utime.tv_usec * 1000ull);
	cli_log_line(log, "rusage.sys_ns", "%llu",
		 (unsigned long long)ru->ru_stime.tv_sec * 1000000000ull + (unsigned long long)ru->ru_stime.tv_usec * 1000ull);
	cli_log_line(log, "rusage.maxrss_kb", "%ld", ru->ru_maxrss);
	if (log_close(log) != 0)
		cli_warn(CMD, "%s: %s (how the run ended is not recorded)", path, strerror(errno));
}

/* LD_PRELOAD for the child: our libraries first (the collector, which holds
 * the -pg runtime, and the tracers asked for), then what was there. */
static int build_preload(const struct record_opts *o, char *buf, size_t len)
{
	const struct {
		const char *name;
		bool wanted;
	} libs[] = {
		{ "libtally-collector.so", true },
		{ "libtally-heap.so", o->launch.heap || o->launch.data }, { "libtally-sync.so", o->launch.sync_ns != -1 },
		{ "libtally-io.so", o->launch.io }, { "libtally-mpi.so", o->launch.mpi },
	};
	const char *dir = cli_lib_dir();
	const char *old = getenv("LD_PRELOAD");
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		char path[PATH_MAX], real[PATH_MAX];
		if (!libs[i].wanted)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, libs[i].name);
		if (!realpath(path, real)) {
			if (!strcmp(libs[i].name, "libtally-mpi.so"))
				cli_error(CMD, "-m: %s: %s (tally was built without mpi.h: install "
					  "libopenmpi-dev and rebuild)", path, strerror(errno));
			else
				cli_error(CMD, "%s: %s (is tally installed? %s names its lib directory)",
					  path, strerror(errno), EXP_ENV_LIB_DIR);
			return -1;
		}
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", real);
		if (n >= len)
			return -1;
	}
	if (old && *old)
		n += (size_t)snprintf(buf + n, len - n, " %s", old);
	return n < len ? 0 : -1;
}

/* Did the collector start in the program?  It writes "pid: N" first thing
 * into the log, which only `tally record` had written to before. */
static bool collector_started(const char *dir)
{
	char path[PATH_MAX + 16], line[256];
	bool found = false;

	snprintf(path, sizeof(path), "%s/%s", dir, EXP_LOG_NAME);
	FILE *f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "pid: ", 5);
	if (f)
		fclose(f);
	return found;
}

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	size_t nopts;
	const struct cli_opt *opts = cmd_record_options(&nopts);
	struct option longopts[CLI_ARGS_MAX + 1];
	char shortopts[3 * CLI_ARGS_MAX + 3];
	int c;
	char *end;

	exp_launch_defaults(&o->launch);
	o->limit = -1;
	optind = 1;
	opterr = 0;                 /* our messages, "tally record: ...", one line */
	cli_args_getopt(opts, nopts, "+:", longopts, shortopts);
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		int row = cli_record_opt_row(c);
		if (row >= 0)
			o->given |= 1ull << row;
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'p':
			o->pid = strtol(optarg, &end, 10);
			if (*end || o->pid <= 0) {
				cli_error(CMD, "-p %s: expected a process id", optarg);
				return -1;
			}
			break;
		case 'U':
			o->duration_s = strtod(optarg, &end);
			if (*end || end == optarg || !(o->duration_s > 0) || o->duration_s > 1e9) {
				cli_error(CMD, "--duration %s: expected seconds, more than 0", optarg);
				return -1;
			}
			break;
		case 'W':
			o->delay_s = strtod(optarg, &end);
			if (*end || end == optarg || !(o->delay_s >= 0) || o->delay_s > 1e9) {
				cli_error(CMD, "--delay %s: expected seconds, 0 or more", optarg);
				return -1;
			}
			o->launch.delay_ns = (int64_t)(o->delay_s * 1e9);
			break;
		case 'P': {
			double s = strtod(optarg, &end);
			if (*end || end == optarg || !(s >= 0) || s > 1e6 || (s > 0 && s < 0.001)) {
				cli_error(CMD, "--process-samples %s: expected seconds, 0 (none) or 0.001 and more",
					  optarg);
				return -1;
			}
			o->launch.psample_ns = (int64_t)(s * 1e9);
			o->psample_set = true;
			break;
		}
		case 'T':
			if (parse_signal(optarg, &o->launch.toggle_sig) != 0)
				return -1;
			break;
		case 'C':
			if (cli_control_check(optarg) != 0)
				return -1;
			o->control = optarg;
			o->launch.control = true;
			break;
		case 'F': {
			unsigned long hz = strtoul(optarg, &end, 10);
			if (*end || end == optarg || *optarg == '-') {
				cli_error(CMD, "-F %s: expected a rate in Hz, 0..%u", optarg, EXP_HZ_MAX);
				return -1;
			}
			if (hz > EXP_HZ_MAX) {
				cli_warn(CMD, "-F %s: lowered to %u Hz, the most tally samples at: above it the "
					 "kernel's timer alone takes most of the CPU on a VM (docs/collector.md)",
					 optarg, EXP_HZ_MAX);
				hz = EXP_HZ_MAX;
			}
			o->launch.hz = (uint32_t)hz;
			break;
		}
		case 'H': o->launch.heap = true; break;
		case 'S': o->launch.states = true; break;
		case 'k': o->kernel = true; o->no_kernel = false; break;
		case 'K': o->no_kernel = true; o->kernel = false; break;
		case 'd': o->launch.data = true; break;
		case 'c': {
			char err[512];
			if (o->ncounters == EXP_MAX_COUNTERS) {
				cli_error(CMD, "-c %s: at most %d counters", optarg, EXP_MAX_COUNTERS);
				return -1;
			}
			if (exp_event_parse(optarg, &o->counters[o->ncounters], err, sizeof(err)) != 0) {
				cli_error(CMD, "%s", err);
				return -1;
			}
			o->ncounters++;
			break;
		}
		case 'i': o->launch.io = true; break;
		case 'm': o->launch.mpi = true; break;
		case 'j':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				cli_error(CMD, "-j %s: expected on or off", optarg);
				return -1;
			}
			o->launch.java = !strcmp(optarg, "on");
			break;
		case 'B':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				cli_error(CMD, "--sync-holders=%s: expected on or off", optarg);
				return -1;
			}
			o->launch.sync_holders = !strcmp(optarg, "on");
			break;
		case 's':
			o->launch.sync_ns = -2;
			if (optarg) {
				if (!parse_duration_ns(optarg, &o->launch.sync_ns)) {
					cli_error(CMD, "--sync=%s: expected a duration (1000, 5us, 2ms)", optarg);
					return -1;
				}
			} else if (optind < argc && parse_duration_ns(argv[optind], &o->launch.sync_ns)) {
				optind++;
			}
			break;
		case 'f':
			if (!strcmp(optarg, "all"))
				o->launch.follow = true;
			else if (!strcmp(optarg, "none"))
				o->launch.follow = false;
			else {
				cli_error(CMD, "--follow=%s: expected all or none", optarg);
				return -1;
			}
			break;
		case 'n':
			o->launch.max_frames = (uint32_t)strtoul(optarg, &end, 10);
			if (*end || o->launch.max_frames < 1 || o->launch.max_frames > EXP_MAX_FRAMES) {
				cli_error(CMD, "--frames %s: expected 1..%d", optarg, EXP_MAX_FRAMES);
				return -1;
			}
			break;
		case 'L':
			if (cli_space_parse(optarg, &o->limit) != 0) {
				cli_error(CMD, "-L %s: expected a size (MiB, or 500k, 20M, 2G; unlimited)", optarg);
				return -1;
			}
			break;
		case 'h': usage(stdout); return 1;
		case ':':
			cli_error(CMD, "%s needs a value (tally record --help)", argv[optind - 1]);
			return -1;
		default:
			if (optopt)
				cli_error(CMD, "unknown option -%c (tally record --help)", optopt);
			else
				cli_error(CMD, "unknown option %s (tally record --help)", argv[optind - 1]);
			return -1;
		}
	}
	if (o->pid && optind < argc) {
		cli_error(CMD, "-p attaches to a running process: give no program to run");
		return -1;
	}
	/* The options the record table marks CLI_ATT_RUN (the tracers' are
	 * refused by cli_attach_record, after the options are all read). */
	int row = o->pid ? cli_record_opts_unattachable(o->given, CLI_ATT_RUN) : -1;
	if (row >= 0) {
		char name[40];
		cli_record_opt_name((size_t)row, name, sizeof(name));
		cli_error(CMD, "-p: %s is for a program tally runs, not when attaching (it starts with the "
			  "run, its threads or its exec, or follows what the run creates): record the program "
			  "from its start (tally record %s -- PROGRAM)", name, name);
		return -1;
	}
	if (!o->pid)
		o->launch.duration_ns = (int64_t)(o->duration_s * 1e9);
	if (!o->pid && optind >= argc) {
		cli_error(CMD, "no program to run (tally record [OPTIONS] -- PROGRAM [ARGS...])");
		return -1;
	}
	return 0;
}

/* An executable file the kernel cannot run (no "#!" line) is a shell
 * script, as for execvp and the shells: run it with /bin/sh.  Returns the
 * errno if that fails too.  In the child, before the program starts. */
static int run_as_script(const char *path, char **prog, int nprog)
{
	char **argv = calloc((size_t)nprog + 2, sizeof(*argv));

	if (!argv)
		return ENOEXEC;
	argv[0] = "sh";
	argv[1] = (char *)path;
	for (int i = 1; i < nprog; i++)
		argv[i + 1] = prog[i];
	execv("/bin/sh", argv);
	return errno;
}

/* --data of a program that runs with the collector (resolved, not static):
 * a precise memory event if the PMU has one that opens and -c left a
 * counter for it, else the clock samples' registers; o->data_source says
 * which and why (the log's data.source, the overview's line). */
static void choose_data_source(struct record_opts *o)
{
	struct exp_event mem;
	char chosen[sizeof(o->data_source)];

	if (!cli_datasrc_choose(&mem, o->data_source, sizeof(o->data_source)))
		return;
	if (o->ncounters < EXP_MAX_COUNTERS) {
		o->counters[o->ncounters++] = mem;
		return;
	}
	memcpy(chosen, o->data_source, sizeof(chosen));
	snprintf(o->data_source, sizeof(o->data_source), "clock samples (the registers at each sample): "
		 "the -c counters took all %d, none left for %s", EXP_MAX_COUNTERS, chosen);
}

/* The SIGCHLD disposition tally record was given, for the program. */
static struct sigaction chld_given;

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { 0 };
	struct cli_target target;
	char dir[PATH_MAX], absdir[PATH_MAX], preload[6 * PATH_MAX], options[EXP_OPTIONS_MAX];

	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc > 0 ? cli_finish_stdout(CMD, CLI_OK) : CLI_USAGE;
	if (o.pid)
		return cli_attach_record(&o);
	char **prog = argv + optind;
	int nprog = argc - optind;
	/* tally record waits for what it starts (its probes, the program): a
	 * SIGCHLD ignored by whoever ran it would have the kernel reap them
	 * (wait4: "No child processes").  The program gets it back as given. */
	struct sigaction chld_dfl = { .sa_handler = SIG_DFL };
	sigemptyset(&chld_dfl.sa_mask);
	sigaction(SIGCHLD, &chld_dfl, &chld_given);

	/* Under a seccomp filter that may kill perf_event_open (probed in
	 * children: cli_seccomp.c), tally itself makes none either: not -c's
	 * check, --data's choice, -K's events nor a static program's. */
	char seccomp_why[256];
	bool filtered = cli_seccomp_probe(&o.launch, seccomp_why, sizeof(seccomp_why));
	bool perf_safe = !filtered || (o.launch.seccomp_safe & EXP_SECCOMP_PERF);
	if (perf_safe && cli_events_check(o.counters, o.ncounters) != 0)
		return CLI_FATAL;
	rc = cli_target_resolve(prog[0], &target);
	if (rc) {
		cli_error(CMD, "%s: %s", prog[0], target.why);
		return rc;
	}
	/* A static program (or a Go runtime's signals): sampled from outside
	 * (src/outside/). */
	bool outside = target.is_static;
	if (outside) {
		char what[PATH_MAX + 192];
		snprintf(what, sizeof(what), "%s is %s", prog[0], target.outside_why);
		if (cli_outside_check(&o, what) != 0)
			return CLI_USAGE;
		if (!perf_safe) {
			cli_error(CMD, "%s: not sampled: %s, it is sampled from outside by perf events, "
				  "and tally runs under a seccomp filter (%s)", prog[0], target.outside_why, seccomp_why);
			return CLI_FATAL;
		}
	}
	if (o.launch.data && perf_safe)   /* the target runs with the collector: which data source */
		choose_data_source(&o);
	else if (o.launch.data)
		snprintf(o.data_source, sizeof(o.data_source),
			 "clock samples (the registers at each sample): no perf event under a seccomp filter (%s)",
			 seccomp_why);
	if (o.kernel && !perf_safe)
		cli_warn(CMD, "--kernel: no kernel frames: tally makes no perf event under a seccomp filter (%s)",
			 seccomp_why);
	char counters[EXP_MAX_COUNTERS * (EXP_EVENT_NAME_MAX + 80)];
	if (exp_events_encode(o.counters, o.ncounters, counters, sizeof(counters)) < 0) {
		cli_error(CMD, "the counters do not fit in %s", EXP_ENV_COUNTERS);
		return CLI_FATAL;
	}
	if (build_preload(&o, preload, sizeof(preload)) != 0)
		return CLI_FATAL;
	const char *rank_from = NULL;
	int32_t rank = exp_launch_rank(target.path, &rank_from);
	if ((rank >= 0 ? make_rank_dir(o.out, rank, dir, sizeof(dir))
		       : cli_record_make_dir(o.out, dir, sizeof(dir))) != 0)
		return CLI_FATAL;
	if (!realpath(dir, absdir)) {
		cli_error(CMD, "%s: %s", dir, strerror(errno));
		return CLI_FATAL;
	}
	if (cli_space_check(dir, &o.limit) != 0) {
		cli_record_remove_dir(dir);
		return CLI_FATAL;
	}
	o.launch.limit_bytes = o.limit > 0 ? o.limit : 0;
	o.launch.launch_ns = (int64_t)cli_now_ns(CLOCK_MONOTONIC);   /* --delay, --duration */
	if (write_log_head(dir, &o, &target, nprog, prog) != 0 ||
	    (rank >= 0 && log_rank(dir, rank, rank_from) != 0) ||
	    (filtered && log_seccomp(dir, seccomp_why) != 0)) {
		cli_record_remove_dir(dir);
		return CLI_FATAL;
	}
	if (exp_launch_encode(&o.launch, options, sizeof(options)) < 0) {
		cli_error(CMD, "the options do not fit in %s", EXP_ENV_OPTIONS);
		return CLI_FATAL;
	}
	struct cli_control *ctl = NULL;
	if (o.control && !(ctl = cli_control_open(o.control, dir))) {
		cli_record_remove_dir(dir);
		return CLI_FATAL;
	}

	/* With kernel frames, the child waits (on `go`) for tally to open
	 * the kernel's events on it before its exec. */
	bool kernel = o.kernel && o.launch.hz && !outside && perf_safe;
	int pipefd[2], go[2] = { -1, -1 };
	if (pipe2(pipefd, O_CLOEXEC) != 0 || ((kernel || outside) && pipe2(go, O_CLOEXEC) != 0)) {
		cli_error(CMD, "pipe: %s", strerror(errno));
		return CLI_FATAL;
	}
	uint64_t t0 = cli_now_ns(CLOCK_MONOTONIC);
	fflush(NULL);
	child_pid = fork();
	if (child_pid < 0) {
		cli_error(CMD, "fork: %s", strerror(errno));
		return CLI_FATAL;
	}
	if (child_pid == 0) {
		close(pipefd[0]);
		sigaction(SIGCHLD, &chld_given, NULL);
		if (kernel || outside) {
			char c;
			close(go[1]);
			while (read(go[0], &c, 1) < 0 && errno == EINTR)
				;
			close(go[0]);
		}
		if (outside)
			goto exec;         /* nothing is loaded into it */
		setenv(EXP_ENV_PRELOAD, preload, 1);
		setenv(EXP_ENV_EXP, absdir, 1);
		setenv(EXP_ENV_OPTIONS, options, 1);
		setenv(EXP_ENV_COUNTERS, counters, 1);
		unsetenv(EXP_ENV_ROOT);
		unsetenv(EXP_ENV_PID);
		unsetenv(EXP_ENV_LINEAGE);
		char r[24];
		snprintf(r, sizeof(r), "%d", (int)rank);
		setenv(EXP_ENV_JOB_RANK, r, 1);
		snprintf(r, sizeof(r), "%d", (int)getpid());
		setenv(EXP_ENV_FOUNDER, r, 1);
exec:
		execv(target.path, prog);
		int e = errno;
		if (e == ENOEXEC)
			e = run_as_script(target.path, prog, nprog);
		if (write(pipefd[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(pipefd[1]);
	char log_path[PATH_MAX + 16], kernel_why[512];
	snprintf(log_path, sizeof(log_path), "%s/%s", dir, EXP_LOG_NAME);
	struct cli_kernel *kern = NULL;
	struct out_session *out = NULL;
	if (outside) {
		close(go[0]);
		if (o.kernel && !(kern = cli_kernel_file(dir, 1000000000ull / o.launch.hz, kernel_why,
							  sizeof(kernel_why)))) {
			FILE *log = log_append(log_path);
			if (log) {
				cli_log_line(log, "kernel.frames", "%s", kernel_why);
				log_close(log);
			}
		}
		out = cli_outside_start(child_pid, 0, dir, &o, kern, target.outside_why);
		if (!out) {
			kill(child_pid, SIGKILL);
			waitpid(child_pid, NULL, 0);
			cli_record_remove_dir(dir);
			return CLI_FATAL;
		}
		close(go[1]);                /* the child goes on to its exec */
	}
	if (kernel) {
		close(go[0]);
		kern = cli_kernel_open(child_pid, 1000000000ull / o.launch.hz, o.launch.states, dir,
				       kernel_why, sizeof(kernel_why));
		close(go[1]);                /* the child goes on to its exec */
		if (!kern) {
			FILE *log = log_append(log_path);
			if (log) {
				cli_log_line(log, "kernel.frames", "%s", kernel_why);
				log_close(log);
			}
		}
	}
	int exec_errno = 0;
	ssize_t got;
	do
		got = read(pipefd[0], &exec_errno, sizeof(exec_errno));
	while (got < 0 && errno == EINTR);
	close(pipefd[0]);

	/* The terminal's ^C and ^\ reach the program directly; we wait for it
	 * to decide what they mean.  Signals sent to tally alone go on to it. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTERM, forward_signal);
	signal(SIGHUP, forward_signal);
	signal(SIGUSR1, forward_signal);
	signal(SIGUSR2, forward_signal);
	/* The program's file size limit is ours too: past it, writing the
	 * experiment fails (and says so) instead of killing tally. */
	signal(SIGXFSZ, SIG_IGN);

	int status = 0;
	struct rusage ru;
	pid_t waited;
	while ((waited = wait4(child_pid, &status, kern || out || ctl ? WNOHANG : 0, &ru)) <= 0) {
		if (waited < 0 && errno != EINTR) {
			cli_error(CMD, "wait4: %s", strerror(errno));
			return CLI_FATAL;
		}
		if (waited == 0 && out)
			out_session_poll(out, ctl ? 20 : 50);
		else if (waited == 0 && kern)
			cli_kernel_poll(kern, ctl ? 20 : 100);
		if (waited == 0 && ctl)
			cli_control_poll(ctl, kern || out ? 0 : 20);
	}
	bool kernel_chains = out ? out_session_kernel_chains(out) : true;
	if (out)
		out_session_close(out);          /* its last samples' chains go to kern */
	if (kern && !kernel_chains)
		cli_kernel_refused(kern, log_path);
	else if (kern)
		cli_kernel_close(kern, log_path);
	cli_control_close(ctl);
	if (got == sizeof(exec_errno)) {
		cli_error(CMD, "%s: %s", prog[0], strerror(exec_errno));
		cli_record_remove_dir(dir);
		return exec_errno == ENOENT ? 127 : 126;
	}
	write_log_end(dir, status, &ru, cli_now_ns(CLOCK_MONOTONIC) - t0);
	if (!collector_started(dir))
		cli_warn(CMD, "%s: the collector did not start in %s (no \"pid:\" line in %s/%s): "
			 "nothing was recorded", dir, prog[0], dir, EXP_LOG_NAME);
	/* On a full file system, compacting and archiving would only fail: the
	 * loss line says they were not done. */
	bool full = cli_space_full(dir);
	if (!full) {
		cli_compact(dir);
		cli_archive(dir);
	}
	cli_space_report(dir, dir, o.launch.hz, o.launch.limit_bytes, full);
	cli_unsampled_warn(dir);
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "tally record: %s was killed by signal %d (%s); experiment in %s\n",
			prog[0], WTERMSIG(status), strsignal(WTERMSIG(status)), dir);
		return 128 + WTERMSIG(status);
	}
	/* A job's ranks all end here: rank 0 speaks for them. */
	if (rank == 0)
		fprintf(stderr, "tally record: experiment in %.*s (a job: one rankN.exp per rank)\n",
			(int)(strlen(dir) - strlen("/rank0.exp")), dir);
	else if (rank < 0)
		fprintf(stderr, "tally record: experiment in %s\n", dir);
	return WIFEXITED(status) ? WEXITSTATUS(status) : CLI_FATAL;
}
