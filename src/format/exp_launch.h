/* SPDX-License-Identifier: MIT
 *
 * exp_launch.h — the launch contract: what `tally record` and the collector
 * inside the target agree on, in one place.
 *
 *   - the files of an experiment directory (record files by kind, the
 *     counters, the log);
 *   - the environment variables that carry an experiment from `tally record`
 *     to the target and from a collecting process to its descendants;
 *   - the options string in TALLY_OPTIONS, written by exp_launch_encode and
 *     read by exp_launch_decode (a table of keys: adding an option is one
 *     field in struct exp_launch_options and one line in exp_launch.c);
 *   - the name of the collector's thread wrapper, which the analyzer hides
 *     from stacks.
 *
 * Used by the CLI (cmd_record.c), the collector (inside the target, before
 * main: exp_launch_decode and the tables use no malloc and no stdio), the
 * reader and the tests.  Extending it: append; never reuse a name.
 */
#ifndef TALLY_EXP_LAUNCH_H
#define TALLY_EXP_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/exp_records.h"

/* ---- files of one experiment directory ----------------------------------- */

#define EXP_LOG_NAME "log.txt"             /* human-readable "key: value" lines */
#define EXP_COUNTERS_NAME "counters.dat"   /* loss counters, mapped shared */
#define EXP_PROC_SUFFIX ".proc"            /* a descendant's process file, beside
                                              its LINEAGE.exp (exp_records.h) */
#define EXP_SLOTS_NAME "processes.dat"     /* the run's process slots (format 9,
                                              exp_records.h), in the root */

#define EXP_ARCHIVE_DIR "archive"          /* copies of objects, named by build-id */
#define EXP_DEFAULT_NAME "tally.%d.exp"     /* tally.1.exp, tally.2.exp, ... */

/* Create the first unused EXP_DEFAULT_NAME (N from 1) in the current
 * directory and put its name in `path`.  Returns 0; -EEXIST if every N up
 * to 99999 is taken; or the -errno of mkdir. */
int exp_dir_create_next(char *path, size_t len);

/* The name of an archived object: its build-id in lowercase hex into `out`
 * (at least 2 * len + 1 bytes), NUL-terminated.  Returns the length.  No
 * stdio: the collector archives the vDSO with it. */
size_t exp_build_id_hex(const uint8_t *id, size_t len, char *out);

/* The record file of `kind` ("samples.dat", ...), or NULL if `kind` has none. */
const char *exp_file_name(enum exp_file_kind kind);

/* The i-th file a process may create in its directory (record files in kind
 * order, then counters.dat, then log.txt, then the root's processes.dat), or NULL
 * past the last one.  The
 * order is fixed: tests/fuzz selects a file by its index. */
const char *exp_dir_file(size_t i);

/* ---- environment --------------------------------------------------------- */

#define EXP_ENV_EXP "TALLY_EXP"             /* absolute directory this process writes */
#define EXP_ENV_OPTIONS "TALLY_OPTIONS"     /* exp_launch_encode's string */
#define EXP_ENV_ROOT "TALLY_ROOT"           /* the founder's directory */
#define EXP_ENV_LINEAGE "TALLY_LINEAGE"     /* "", "_f1", "_f1_x1", ... */
#define EXP_ENV_PID "TALLY_PID"             /* pid of the process that set them,
                                               then the offset of its slot of
                                               processes.dat if it has one */
#define EXP_ENV_FOUNDER "TALLY_FOUNDER"     /* pid `tally record` started: a later
                                               process with no TALLY_PID kept the
                                               founder's first environment (Go) */
#define EXP_ENV_LIB_DIR "TALLY_LIB_DIR"     /* where `tally` finds its libraries */
#define EXP_ENV_PRELOAD "LD_PRELOAD"        /* the collector and the tracers */
#define EXP_ENV_JOB_RANK "TALLY_JOB_RANK"   /* the MPI rank whose experiment this
                                               process's belongs to; -1: none */
#define EXP_ENV_RANK "TALLY_RANK"           /* set by the user: this process is
                                               that rank (launchers tally does not know) */
#define EXP_ENV_SIZE "TALLY_SIZE"           /* set by the user with TALLY_RANK: the
                                               job's number of ranks (optional) */
#define EXP_ENV_COUNTERS "TALLY_COUNTERS"   /* -c: the counters, "NAME/PERIOD,..."
                                               (format/exp_events.h) */
#define EXP_ENV_SLOT "TALLY_SLOT"           /* "PID WRITER N[/K] COST": the exec'ing
                                               process took N (_fN_x1, _xN) from
                                               WRITER's counters (and slot K of
                                               processes.dat) for the image of
                                               pid PID, and spent COST ns of CPU
                                               in a vfork child on it
                                               (col_descend.c); removed by it */

/* The variables a collecting process publishes for its descendants, in the
 * order exec'd images receive them (LD_PRELOAD first). */
#define EXP_ENV_INHERITED_COUNT 8
extern const char *const exp_env_inherited[EXP_ENV_INHERITED_COUNT];

/* ---- MPI jobs (docs/mpi.md) ---------------------------------------------- */

/* The MPI_COMM_WORLD rank a launcher gave this process in its environment:
 * TALLY_RANK (the user's), OMPI_COMM_WORLD_RANK (Open MPI), PMIX_RANK,
 * PMI_RANK (MPICH's hydra, Slurm's PMI-2), MV2_COMM_WORLD_RANK (MVAPICH),
 * SLURM_PROCID (inside a job step only: a batch script has one too), in that
 * order; *from gets the variable's name.  -1 when there is none, or when
 * `program` (a path or name) is itself a launcher or its daemon (mpirun,
 * mpiexec, orterun, orted, prterun, prted, srun, hydra_pmi_proxy).  Uses
 * getenv only. */
int32_t exp_launch_rank(const char *program, const char **from);

/* The job a launcher started a rank in, as its environment says, for the
 * rank's log (`job.*` keys, docs/experiment-format.md):
 *   job.launcher  who gave the rank: slurm, openmpi, pmix, pmi, mvapich, user
 *                 (by `from`, the variable exp_launch_rank found; PMIx's or
 *                 PMI's rank in a Slurm job step is srun's: slurm);
 *   job.id        the batch system's job (SLURM_JOB_ID), else the launcher's
 *                 (PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid);
 *   job.step      Slurm's job step (SLURM_STEP_ID);
 *   job.size      the ranks of the job, by the launcher's variable paired
 *                 with `from` (SLURM_NTASKS, OMPI_COMM_WORLD_SIZE, PMI_SIZE,
 *                 MV2_COMM_WORLD_SIZE, TALLY_SIZE);
 *   job.host      the node's name: SLURMD_NODENAME, else uname's nodename.
 * Keys without a value are left out.  Values point into the environment
 * or into j->host_buf.  Uses getenv and uname only (the collector calls it
 * before main). */
#define EXP_LAUNCH_JOB_KEYS 5
struct exp_launch_job {
	const char *key[EXP_LAUNCH_JOB_KEYS];
	const char *value[EXP_LAUNCH_JOB_KEYS];
	size_t n;                  /* keys filled */
	char host_buf[72];         /* uname's nodename (at most 64 bytes + NUL) */
};
void exp_launch_job(const char *from, struct exp_launch_job *j);

/* ---- options (TALLY_OPTIONS) --------------------------------------------- */

struct exp_launch_options {
	uint32_t hz;               /* clock samples per second of CPU time; 0: no clock */
	bool heap;                 /* -H: trace heap calls */
	int64_t sync_ns;           /* -s: wait threshold in ns; -1 off; -2 calibrate */
	bool io;                   /* -i: trace I/O calls */
	bool follow;               /* --follow=all */
	uint32_t max_frames;       /* --frames: 1..EXP_MAX_FRAMES */
	bool mpi;                  /* -m: trace MPI calls */
	int64_t limit_bytes;       /* -L: the experiment's size limit, all processes; 0: none */
	bool java;                 /* -j: a JVM gets the JVMTI agent (Java stacks) */
	bool states;               /* --states: thread states off the CPU */
	bool sync_holders;         /* -s: record who held contended mutexes (default on) */
	bool data;                 /* --data: each clock sample's registers (data objects) */
	int64_t launch_ns;         /* CLOCK_MONOTONIC when `tally record` launched the
	                              program: --delay and --duration count from it */
	int64_t delay_ns;          /* --delay: record nothing before launch_ns + this */
	int64_t duration_ns;       /* --duration: nothing from launch_ns + delay_ns + this
	                              on; 0: to the end */
	uint32_t toggle_sig;       /* --toggle-signal: this signal turns recording off
	                              and on in the process it is sent to; 0: none */
	bool control;              /* --control: the founder's directory has EXP_CONTROL_NAME */
	int64_t psample_ns;        /* --process-samples: a PROC_SAMPLE every this many ns
	                              of wall time; 0: none */
	int64_t seccomp_filters;   /* the seccomp filters `tally record` ran under
	                              (Seccomp_filters in /proc/self/status), and so
	                              the program started under; -1: none, or not
	                              probed (attach) */
	uint32_t seccomp_safe;     /* EXP_SECCOMP_* bits: the calls a probe process of
	                              `tally record`, under those filters, made and
	                              lived (docs/collector.md, "Seccomp") */
};

/* The collector's calls a seccomp filter might kill its caller for, probed
 * by `tally record` (cli_seccomp.c) in a child under the same filters. */
#define EXP_SECCOMP_PERF 1u        /* perf_event_open (a task-clock event) */
#define EXP_SECCOMP_CLONE 2u       /* clone(CLONE_VM | CLONE_VFORK): col_fds_aside's helper */
#define EXP_SECCOMP_ROBUST 4u      /* get_robust_list and set_robust_list: a raw
                                      thread's key (col_rawthread.c) */
#define EXP_SECCOMP_ALL_ (EXP_SECCOMP_PERF | EXP_SECCOMP_CLONE | EXP_SECCOMP_ROBUST)

/* The highest sampling rate: each sample costs the kernel's timer ~20 us of
 * CPU in a VM (its interrupt exits to the hypervisor), and a task-clock
 * period includes that cost, so at F Hz the program runs 1/(1 - F * 20us)
 * times slower: 1.25x at 10 kHz, 1.6x at 20 kHz, 5x at 40 kHz, and at 50
 * kHz and above it hardly runs at all.  Measured in docs/collector.md. */
#define EXP_HZ_MAX 20000u
#define EXP_OPTIONS_MAX 512        /* bytes of an encoded options string, NUL included */

/* The options of a plain `tally record PROGRAM`. */
void exp_launch_defaults(struct exp_launch_options *o);

/* Write `o` as "key=value,..." (every key, in table order) into buf.
 * Returns the length, or -1 if it does not fit in `len` bytes. */
int exp_launch_encode(const struct exp_launch_options *o, char *buf, size_t len);

/* Read a string written by exp_launch_encode (NULL: the defaults).  Keys not
 * given keep their default; out-of-range values are clamped to the nearest
 * bound.  Returns the number of items that were not understood (unknown
 * key, no '=', not a number), 0 if none; they are skipped. */
int exp_launch_decode(const char *s, struct exp_launch_options *o);

/* The value of option `key` ("hz", "heap", ...) in o, into *v; 0, or -1 for
 * a key the table does not have. */
int exp_launch_get(const struct exp_launch_options *o, const char *key, long long *v);

/* ---- recording off and on (docs/collector.md, "Control of a run") ------- */

/* Why a process recorded nothing for a while: each reason is a bit of the
 * collector's paused state, and recording is on when no bit is set.  The
 * collector logs every change of a bit as a line
 *     control: TIME_NS off|on NAME CPU_NS
 * (EXP_LOG_CONTROL; TIME_NS CLOCK_MONOTONIC, NAME exp_pause_name's, CPU_NS
 * the process's CPU time as the change was applied), which the analyzer
 * turns into the gaps of the overview and the timeline. */
enum exp_pause_reason {
	EXP_PAUSE_API,             /* tally_pause() .. tally_resume() */
	EXP_PAUSE_DELAY,           /* tally record --delay */
	EXP_PAUSE_DURATION,        /* after tally record --duration */
	EXP_PAUSE_SIGNAL,          /* tally record --toggle-signal */
	EXP_PAUSE_CONTROL,         /* tally record --control, tally control */
	EXP_PAUSE_COUNT_
};
#define EXP_LOG_CONTROL "control"

/* "tally_pause", "--delay", "--duration", "--toggle-signal", "--control";
 * NULL out of range.  exp_pause_parse is its inverse (-1: unknown). */
const char *exp_pause_name(enum exp_pause_reason r);
int exp_pause_parse(const char *name, size_t len);

/* The control page: a file in the founder's directory, made by `tally
 * record --control` and mapped shared by every collecting process of the
 * run.  Whoever turns recording off or on (`tally record` reading its
 * FIFO, `tally control EXP`) stores `off` and `time_ns`, then increments
 * `seq` (release); a collector that sees a new `seq` (acquire) applies `off`
 * as its EXP_PAUSE_CONTROL bit and logs the change at `time_ns`.
 *     offset size field
 *          0    4 magic EXP_CONTROL_MAGIC
 *          4    4 seq: changes so far
 *          8    4 off: 1 recording off, 0 on
 *         12    4 reserved, 0
 *         16    8 time_ns: CLOCK_MONOTONIC of the last change */
#define EXP_CONTROL_NAME "control.dat"
#define EXP_CONTROL_MAGIC 0x6c727463u      /* "ctrl" */
struct exp_control_page {
	uint32_t magic;
	_Atomic uint32_t seq;
	_Atomic uint32_t off;
	uint32_t reserved;
	_Atomic uint64_t time_ns;
};

/* ---- the collector's thread wrapper ---------------------------------------- */

/* Every thread the target creates starts in this function of the collector
 * (col_interpose_thread.c); the analyzer starts a thread's stacks at the
 * routine it calls. */
#define EXP_THREAD_WRAPPER "tally_thread_start"

#endif
