/* SPDX-License-Identifier: MIT
 *
 * exp_launch.c — the launch contract's tables and the options string (see
 * exp_launch.h).  Linked into both `tally` and the collector.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "format/exp_launch.h"

static const char *const file_names[EXP_FILE_COUNT_] = {
	[EXP_FILE_SAMPLES] = "samples.dat", [EXP_FILE_STACKS] = "stacks.dat",
	[EXP_FILE_MAPS] = "maps.dat",       [EXP_FILE_THREADS] = "threads.dat",
	[EXP_FILE_HEAP] = "heap.dat",       [EXP_FILE_SYNC] = "sync.dat",
	[EXP_FILE_IO] = "io.dat",           [EXP_FILE_ARCS] = "arcs.dat",
	[EXP_FILE_MPI] = "mpi.dat",         [EXP_FILE_DYN] = "dyn.dat",
	[EXP_FILE_CODE] = "code.dat",       [EXP_FILE_STATES] = "states.dat",
	[EXP_FILE_HWC] = "hwc.dat",         [EXP_FILE_KERNEL] = "kernel.dat",
};

const char *exp_file_name(enum exp_file_kind kind)
{
	return (unsigned)kind < EXP_FILE_COUNT_ ? file_names[kind] : NULL;
}

const char *exp_dir_file(size_t i)
{
	for (int k = 1; k < EXP_FILE_COUNT_; k++)
		if (file_names[k] && i-- == 0)
			return file_names[k];
	if (i == 0)
		return EXP_COUNTERS_NAME;
	if (i == 1)
		return EXP_LOG_NAME;
	return i == 2 ? EXP_SLOTS_NAME : NULL;
}

int exp_dir_create_next(char *path, size_t len)
{
	for (int n = 1; n < 100000; n++) {
		snprintf(path, len, EXP_DEFAULT_NAME, n);
		if (mkdir(path, 0755) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

size_t exp_build_id_hex(const uint8_t *id, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = hex[id[i] >> 4];
		out[2 * i + 1] = hex[id[i] & 15];
	}
	out[2 * len] = 0;
	return 2 * len;
}

const char *const exp_env_inherited[EXP_ENV_INHERITED_COUNT] = {
	EXP_ENV_PRELOAD, EXP_ENV_EXP, EXP_ENV_ROOT, EXP_ENV_LINEAGE, EXP_ENV_PID, EXP_ENV_OPTIONS,
	EXP_ENV_JOB_RANK, EXP_ENV_COUNTERS,
};

int32_t exp_launch_rank(const char *program, const char **from)
{
	static const char *const vars[] = { EXP_ENV_RANK, "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					    "MV2_COMM_WORLD_RANK", "SLURM_PROCID" };
	static const char *const launchers[] = { "mpirun", "mpiexec", "orterun", "orted", "prterun",
						 "prted", "srun", "hydra_pmi_proxy", "mpiexec.hydra",
						 "mpirun.openmpi", "mpiexec.openmpi" };
	const char *base = program ? strrchr(program, '/') : NULL;

	base = base ? base + 1 : program;
	for (size_t i = 0; base && i < sizeof(launchers) / sizeof(launchers[0]); i++)
		if (!strcmp(base, launchers[i]))
			return -1;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		char *end;
		if (!v || !*v || (!strcmp(vars[i], "SLURM_PROCID") && !getenv("SLURM_STEP_ID")))
			continue;
		long r = strtol(v, &end, 10);
		if (*end || r < 0 || r > INT32_MAX)
			continue;
		if (from)
			*from = vars[i];
		return (int32_t)r;
	}
	return -1;
}

void exp_launch_job(const char *from, struct exp_launch_job *j)
{
	static const struct {
		const char *rank_var, *launcher, *size_var;
	} by_rank[] = {
		{ EXP_ENV_RANK, "user", EXP_ENV_SIZE },
		{ "OMPI_COMM_WORLD_RANK", "openmpi", "OMPI_COMM_WORLD_SIZE" },
		{ "PMIX_RANK", "pmix", NULL },
		{ "PMI_RANK", "pmi", "PMI_SIZE" },
		{ "MV2_COMM_WORLD_RANK", "mvapich", "MV2_COMM_WORLD_SIZE" },
		{ "SLURM_PROCID", "slurm", "SLURM_NTASKS" },
	};
	const char *launcher = NULL, *size = NULL, *id = NULL, *v;
	struct utsname u;

	j->n = 0;
	for (size_t i = 0; from && i < sizeof(by_rank) / sizeof(by_rank[0]); i++)
		if (!strcmp(from, by_rank[i].rank_var)) {
			launcher = by_rank[i].launcher;
			size = by_rank[i].size_var ? getenv(by_rank[i].size_var) : NULL;
		}
	/* A task srun started speaks PMIx or PMI to srun's MPI plugin: the
	 * launcher is Slurm, whose task count is the job step's. */
	const char *procid = getenv("SLURM_PROCID"), *step = getenv("SLURM_STEP_ID");
	if (launcher && (!strcmp(launcher, "pmix") || !strcmp(launcher, "pmi")) && procid && *procid &&
	    step && *step) {
		launcher = "slurm";
		if (!size || !*size)
			size = getenv("SLURM_NTASKS");
	}
	if ((!size || !*size) && step && *step)
		size = getenv("SLURM_STEP_NUM_TASKS");
	if ((v = getenv("SLURM_JOB_ID")) && *v)
		id = v;
	else if ((v = getenv("PMIX_NAMESPACE")) && *v)
		id = v;
	else if ((v = getenv("OMPI_MCA_ess_base_jobid")) && *v)
		id = v;
	const char *host = getenv("SLURMD_NODENAME");
	if ((!host || !*host) && uname(&u) == 0) {
		size_t len = strnlen(u.nodename, sizeof(j->host_buf) - 1);
		memcpy(j->host_buf, u.nodename, len);
		j->host_buf[len] = 0;
		host = j->host_buf;
	}
	const char *kv[EXP_LAUNCH_JOB_KEYS][2] = {
		{ "job.launcher", launcher }, { "job.id", id }, { "job.step", step },
		{ "job.size", size }, { "job.host", host },
	};
	for (size_t i = 0; i < EXP_LAUNCH_JOB_KEYS; i++)
		if (kv[i][1] && *kv[i][1]) {
			j->key[j->n] = kv[i][0];
			j->value[j->n++] = kv[i][1];
		}
}

/* ---- options ------------------------------------------------------------- */

enum opt_type { OPT_U32, OPT_BOOL, OPT_I64 };

static const struct option_def {
	const char *key;
	enum opt_type type;
	size_t offset;
	int64_t min, max, dflt;
} options[] = {
#define OFF(field) offsetof(struct exp_launch_options, field)
	{ "hz", OPT_U32, OFF(hz), 0, EXP_HZ_MAX, 1000 },
	{ "heap", OPT_BOOL, OFF(heap), 0, 1, 0 },
	{ "sync", OPT_I64, OFF(sync_ns), -2, INT64_MAX, -1 },
	{ "io", OPT_BOOL, OFF(io), 0, 1, 0 },
	{ "follow", OPT_BOOL, OFF(follow), 0, 1, 1 },
	{ "frames", OPT_U32, OFF(max_frames), 1, EXP_MAX_FRAMES, EXP_MAX_FRAMES },
	{ "mpi", OPT_BOOL, OFF(mpi), 0, 1, 0 },
	{ "limit", OPT_I64, OFF(limit_bytes), 0, INT64_MAX, 0 },
	{ "java", OPT_BOOL, OFF(java), 0, 1, 1 },
	{ "states", OPT_BOOL, OFF(states), 0, 1, 0 },
	{ "holders", OPT_BOOL, OFF(sync_holders), 0, 1, 1 },
	{ "data", OPT_BOOL, OFF(data), 0, 1, 0 },
	{ "launch", OPT_I64, OFF(launch_ns), 0, INT64_MAX, 0 },
	{ "delay", OPT_I64, OFF(delay_ns), 0, INT64_MAX, 0 },
	{ "duration", OPT_I64, OFF(duration_ns), 0, INT64_MAX, 0 },
	{ "toggle", OPT_U32, OFF(toggle_sig), 0, 64, 0 },
	{ "control", OPT_BOOL, OFF(control), 0, 1, 0 },
	{ "psample", OPT_I64, OFF(psample_ns), 0, INT64_MAX, 1000000000 },
	{ "seccomp", OPT_I64, OFF(seccomp_filters), -1, INT32_MAX, -1 },
	{ "seccomp_safe", OPT_U32, OFF(seccomp_safe), 0, EXP_SECCOMP_ALL_, 0 },
#undef OFF
};
#define NOPTIONS (sizeof(options) / sizeof(options[0]))

static void set(struct exp_launch_options *o, const struct option_def *d, int64_t v)
{
	char *field = (char *)o + d->offset;

	v = v < d->min ? d->min : v > d->max ? d->max : v;
	switch (d->type) {
	case OPT_U32: *(uint32_t *)(void *)field = (uint32_t)v; break;
	case OPT_BOOL: *(bool *)field = v != 0; break;
	case OPT_I64: *(int64_t *)(void *)field = v; break;
	}
}

static int64_t get(const struct exp_launch_options *o, const struct option_def *d)
{
	const char *field = (const char *)o + d->offset;

	switch (d->type) {
	case OPT_U32: return *(const uint32_t *)(const void *)field;
	case OPT_BOOL: return *(const bool *)field;
	case OPT_I64: return *(const int64_t *)(const void *)field;
	}
	return 0;
}

void exp_launch_defaults(struct exp_launch_options *o)
{
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < NOPTIONS; i++)
		set(o, &options[i], options[i].dflt);
}

int exp_launch_encode(const struct exp_launch_options *o, char *buf, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < NOPTIONS; i++) {
		int w = snprintf(buf + n, len - n, "%s%s=%lld", i ? "," : "", options[i].key,
				 (long long)get(o, &options[i]));
		if (w < 0 || (size_t)w >= len - n)
			return -1;
		n += (size_t)w;
	}
	return (int)n;
}

int exp_launch_get(const struct exp_launch_options *o, const char *key, long long *v)
{
	for (size_t i = 0; i < NOPTIONS; i++)
		if (!strcmp(key, options[i].key)) {
			*v = (long long)get(o, &options[i]);
			return 0;
		}
	return -1;
}

int exp_launch_decode(const char *s, struct exp_launch_options *o)
{
	int bad = 0;

	exp_launch_defaults(o);
	while (s && *s) {
		const char *end = strchr(s, ',');
		if (!end)
			end = s + strlen(s);
		const char *eq = memchr(s, '=', (size_t)(end - s));
		const struct option_def *d = NULL;
		for (size_t i = 0; eq && i < NOPTIONS && !d; i++)
			if (strlen(options[i].key) == (size_t)(eq - s) &&
			    !strncmp(s, options[i].key, (size_t)(eq - s)))
				d = &options[i];
		char *num_end = NULL;
		long long v = d ? strtoll(eq + 1, &num_end, 10) : 0;
		if (d && num_end != eq + 1 && num_end == end)
			set(o, d, v);
		else if (end > s)
			bad++;
		s = *end ? end + 1 : end;
	}
	return bad;
}

static const char *const pause_names[EXP_PAUSE_COUNT_] = {
	[EXP_PAUSE_API] = "tally_pause",         [EXP_PAUSE_DELAY] = "--delay",
	[EXP_PAUSE_DURATION] = "--duration",     [EXP_PAUSE_SIGNAL] = "--toggle-signal",
	[EXP_PAUSE_CONTROL] = "--control",
};

const char *exp_pause_name(enum exp_pause_reason r)
{
	return (unsigned)r < EXP_PAUSE_COUNT_ ? pause_names[r] : NULL;
}

int exp_pause_parse(const char *name, size_t len)
{
	for (int r = 0; r < EXP_PAUSE_COUNT_; r++)
		if (strlen(pause_names[r]) == len && !strncmp(name, pause_names[r], len))
			return r;
	return -1;
}
