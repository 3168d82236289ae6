/* SPDX-License-Identifier: MIT
 *
 * test_launch.c — the launch contract (format/exp_launch.h): every options
 * value written by `tally record` reads back the same in the collector
 * (random round trips, the extremes, the defaults), what a hand-made
 * TALLY_OPTIONS gets (unknown keys, garbage, out-of-range values), and the
 * file-name table the CLI, the collector, the reader and the fuzzer share;
 * and the job a launcher's environment describes (exp_launch_job): Slurm's,
 * Open MPI's and the user's variables, and what is left out when unset.
 */
#include <stdlib.h>
#include <sys/utsname.h>

#include "format/exp_events.h"
#include "format/exp_launch.h"
#include "testhelp.h"

static bool same(const struct exp_launch_options *a, const struct exp_launch_options *b)
{
	return a->hz == b->hz && a->heap == b->heap && a->sync_ns == b->sync_ns &&
	       a->io == b->io && a->follow == b->follow && a->max_frames == b->max_frames &&
	       a->mpi == b->mpi && a->states == b->states;
}

static uint64_t rnd(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static void random_round_trips(void)
{
	uint64_t st = 0x9e3779b97f4a7c15ull;
	char buf[EXP_OPTIONS_MAX];

	for (int i = 0; i < 20000; i++) {
		struct exp_launch_options o, back;
		exp_launch_defaults(&o);
		o.hz = (uint32_t)(rnd(&st) % (EXP_HZ_MAX + 1));
		o.heap = rnd(&st) & 1;
		uint64_t r = rnd(&st);
		o.sync_ns = r % 3 == 0 ? -1 : r % 3 == 1 ? -2 : (int64_t)(rnd(&st) >> (1 + rnd(&st) % 63));
		o.io = rnd(&st) & 1;
		o.mpi = rnd(&st) & 1;
		o.follow = rnd(&st) & 1;
		o.max_frames = 1 + (uint32_t)(rnd(&st) % EXP_MAX_FRAMES);
		int n = exp_launch_encode(&o, buf, sizeof(buf));
		CHECKF(n > 0 && (size_t)n < sizeof(buf), "%d", n);
		CHECKF(exp_launch_decode(buf, &back) == 0, "%s", buf);
		CHECKF(same(&o, &back), "%s", buf);
		if (th_case_failed)
			return;
	}
}

static void extremes_fit_and_round_trip(void)
{
	struct exp_launch_options o, back;
	char buf[EXP_OPTIONS_MAX];

	exp_launch_defaults(&o);
	o.hz = EXP_HZ_MAX;
	o.heap = o.io = o.mpi = o.follow = true;
	o.sync_ns = INT64_MAX;
	o.max_frames = EXP_MAX_FRAMES;
	CHECK(exp_launch_encode(&o, buf, sizeof(buf)) > 0);
	CHECK(exp_launch_decode(buf, &back) == 0 && same(&o, &back));
	CHECK(exp_launch_encode(&o, buf, 10) == -1);        /* too small: refused */
}

static void defaults(void)
{
	struct exp_launch_options d, o;
	char buf[EXP_OPTIONS_MAX];

	exp_launch_defaults(&d);
	CHECK(d.hz == 1000 && !d.heap && d.sync_ns == -1 && !d.io && d.follow &&
	      d.max_frames == EXP_MAX_FRAMES && !d.mpi && !d.states);
	CHECK(exp_launch_decode(NULL, &o) == 0 && same(&o, &d));
	CHECK(exp_launch_decode("", &o) == 0 && same(&o, &d));
	CHECK(exp_launch_encode(&d, buf, sizeof(buf)) > 0);
	CHECKF(!strcmp(buf, "hz=1000,heap=0,sync=-1,io=0,follow=1,frames=1024,mpi=0,limit=0,java=1,states=0,holders=1,data=0,"
			    "launch=0,delay=0,duration=0,toggle=0,control=0,psample=1000000000,seccomp=-1,seccomp_safe=0"), "%s", buf);
}

static void hand_made_strings(void)
{
	struct exp_launch_options o;

	/* A subset of keys, in any order; the rest keep their defaults. */
	CHECK(exp_launch_decode("io=1,hz=250", &o) == 0);
	CHECK(o.hz == 250 && o.io && !o.heap && o.sync_ns == -1 && o.follow);
	/* The control of a run: times in ns, a signal number, a flag. */
	CHECK(exp_launch_decode("launch=5,delay=300000000,duration=7,toggle=10,control=1", &o) == 0);
	CHECK(o.launch_ns == 5 && o.delay_ns == 300000000 && o.duration_ns == 7 && o.toggle_sig == 10 &&
	      o.control);
	CHECK(exp_pause_parse("--delay", 7) == EXP_PAUSE_DELAY &&
	      !strcmp(exp_pause_name(EXP_PAUSE_SIGNAL), "--toggle-signal") && exp_pause_parse("x", 1) == -1);
	/* Unknown keys, no '=', not numbers: counted and skipped. */
	CHECK(exp_launch_decode("color=red,heap=1,bogus,hz=fast,frames=12x", &o) == 4);
	CHECK(o.heap && o.hz == 1000 && o.max_frames == EXP_MAX_FRAMES);
	CHECK(exp_launch_decode(",,heap=1,", &o) == 0 && o.heap);
	/* Out of range: clamped to the nearest bound. */
	CHECK(exp_launch_decode("hz=999999,frames=0,sync=-7", &o) == 0);
	CHECK(o.hz == EXP_HZ_MAX && o.max_frames == 1 && o.sync_ns == -2);
	CHECK(exp_launch_decode("frames=5000,hz=-3", &o) == 0);
	CHECK(o.max_frames == EXP_MAX_FRAMES && o.hz == 0);
	/* A key must match whole: "h" and "hzz" are not "hz". */
	CHECK(exp_launch_decode("h=5,hzz=5", &o) == 2 && o.hz == 1000);
}

static void file_names(void)
{
	const char *name;
	size_t n = 0, named = 0;

	/* Kinds are numbered by ranges per feature: some numbers have no file. */
	for (int k = 1; k < EXP_FILE_COUNT_; k++) {
		if (!exp_file_name((enum exp_file_kind)k))
			continue;
		named++;
		for (int j = 1; j < k; j++)
			CHECK(!exp_file_name((enum exp_file_kind)j) ||
			      strcmp(exp_file_name((enum exp_file_kind)k), exp_file_name((enum exp_file_kind)j)));
	}
	for (int k = EXP_FILE_SAMPLES; k <= EXP_FILE_ARCS; k++)
		CHECKF(exp_file_name((enum exp_file_kind)k) != NULL, "kind %d", k);
	CHECK(exp_file_name(0) == NULL && exp_file_name(EXP_FILE_COUNT_) == NULL);
	CHECK(!strcmp(exp_file_name(EXP_FILE_SAMPLES), "samples.dat"));
	CHECK(!strcmp(exp_file_name(EXP_FILE_MPI), "mpi.dat"));
	/* The directory listing: record files in kind order, then the counters,
	 * the log and the root's process slots (tests/fuzz picks a file by this
	 * index). */
	while ((name = exp_dir_file(n)))
		n++;
	CHECK(n == named + 3);
	CHECK(!strcmp(exp_dir_file(0), "samples.dat") && !strcmp(exp_dir_file(7), "arcs.dat"));
	CHECK(!strcmp(exp_dir_file(n - 3), EXP_COUNTERS_NAME));
	CHECK(!strcmp(exp_dir_file(n - 1), EXP_SLOTS_NAME));
	CHECK(!strcmp(exp_dir_file(n - 2), EXP_LOG_NAME));
}

static void environment(void)
{
	CHECK(!strcmp(exp_env_inherited[0], EXP_ENV_PRELOAD));
	for (int i = 1; i < EXP_ENV_INHERITED_COUNT; i++)
		CHECKF(!strncmp(exp_env_inherited[i], "TALLY_", 6), "%s", exp_env_inherited[i]);
	CHECK(!strcmp(EXP_THREAD_WRAPPER, "tally_thread_start"));
}

/* The value of `key` in j, or NULL. */
static const char *job_value(const struct exp_launch_job *j, const char *key)
{
	for (size_t i = 0; i < j->n; i++)
		if (!strcmp(j->key[i], key))
			return j->value[i];
	return NULL;
}

static void job_environment(void)
{
	static const char *const vars[] = { "SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_PROCID", "SLURM_NTASKS",
					    "SLURM_STEP_NUM_TASKS", "SLURMD_NODENAME", "PMIX_NAMESPACE",
					    "OMPI_MCA_ess_base_jobid", "OMPI_COMM_WORLD_RANK",
					    "OMPI_COMM_WORLD_SIZE", "TALLY_RANK", "TALLY_SIZE", "PMIX_RANK" };
	struct exp_launch_job j;
	struct utsname u;
	const char *from;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	CHECK(uname(&u) == 0);
	/* Not a rank: only the host. */
	exp_launch_job(NULL, &j);
	CHECK(j.n == 1 && !strcmp(job_value(&j, "job.host"), u.nodename));
	/* A Slurm step's task: job, step, size and node from Slurm. */
	setenv("SLURM_JOB_ID", "4242", 1);
	setenv("SLURM_STEP_ID", "3", 1);
	setenv("SLURM_PROCID", "2", 1);
	setenv("SLURM_NTASKS", "4", 1);
	setenv("SLURMD_NODENAME", "node7", 1);
	CHECK(exp_launch_rank("./app", &from) == 2 && !strcmp(from, "SLURM_PROCID"));
	exp_launch_job(from, &j);
	CHECK(j.n == 5);
	CHECK(!strcmp(job_value(&j, "job.launcher"), "slurm") && !strcmp(job_value(&j, "job.id"), "4242"));
	CHECK(!strcmp(job_value(&j, "job.step"), "3") && !strcmp(job_value(&j, "job.size"), "4"));
	CHECK(!strcmp(job_value(&j, "job.host"), "node7"));
	/* srun's PMIx plugin gives the rank: Slurm launched it. */
	setenv("PMIX_RANK", "2", 1);
	CHECK(exp_launch_rank("./app", &from) == 2 && !strcmp(from, "PMIX_RANK"));
	exp_launch_job(from, &j);
	CHECK(!strcmp(job_value(&j, "job.launcher"), "slurm") && !strcmp(job_value(&j, "job.size"), "4"));
	unsetenv("PMIX_RANK");
	/* Open MPI's mpirun inside the Slurm job: Open MPI's rank and size, the
	 * batch system's job. */
	setenv("OMPI_COMM_WORLD_RANK", "1", 1);
	setenv("OMPI_COMM_WORLD_SIZE", "8", 1);
	unsetenv("SLURM_STEP_ID");
	unsetenv("SLURMD_NODENAME");
	CHECK(exp_launch_rank("./app", &from) == 1 && !strcmp(from, "OMPI_COMM_WORLD_RANK"));
	exp_launch_job(from, &j);
	CHECK(!strcmp(job_value(&j, "job.launcher"), "openmpi") && !strcmp(job_value(&j, "job.size"), "8"));
	CHECK(!strcmp(job_value(&j, "job.id"), "4242") && !job_value(&j, "job.step"));
	CHECK(!strcmp(job_value(&j, "job.host"), u.nodename));
	/* Open MPI alone: its own job id. */
	unsetenv("SLURM_JOB_ID");
	setenv("OMPI_MCA_ess_base_jobid", "123456", 1);
	exp_launch_job(from, &j);
	CHECK(!strcmp(job_value(&j, "job.id"), "123456"));
	/* The user's variables, first; an empty value is no value. */
	setenv("TALLY_RANK", "0", 1);
	setenv("TALLY_SIZE", "", 1);
	unsetenv("OMPI_MCA_ess_base_jobid");
	CHECK(exp_launch_rank("./app", &from) == 0 && !strcmp(from, "TALLY_RANK"));
	exp_launch_job(from, &j);
	CHECK(j.n == 2 && !strcmp(job_value(&j, "job.launcher"), "user") && !job_value(&j, "job.size"));
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

/* TALLY_COUNTERS: named counters travel by name and period; a precise
 * memory event (its PMU type the machine's) with every field; a precise
 * item cut short, or with precise_ip 0 or 4, is counted bad. */
static void counters_string(void)
{
	struct exp_event in[2], out[3];
	char buf[256], err[256];
	int bad = -1;

	CHECK(exp_event_parse("cache-misses/5000", &in[0], err, sizeof(err)) == 0);
	memset(&in[1], 0, sizeof(in[1]));
	strcpy(in[1].name, "mem-loads");
	in[1].type = 4;
	in[1].config = 0x1cd;
	in[1].config1 = 3;
	in[1].precise = 2;
	in[1].period = 10007;
	CHECK(exp_events_encode(in, 2, buf, sizeof(buf)) > 0);
	CHECK(!strcmp(buf, "cache-misses/5000,mem-loads/10007/4/1cd/3/2"));
	CHECK(exp_events_decode(buf, out, 3, &bad) == 2 && bad == 0);
	CHECK(!memcmp(&in[0], &out[0], sizeof(in[0])) && !memcmp(&in[1], &out[1], sizeof(in[1])));
	CHECK(exp_events_decode("mem-loads/10007/4/1cd/3,x/1/4/0/0/0,y/1/4/0/0/4,z/1/4/0/0/1", out, 3, &bad) == 1 &&
	      bad == 3 && !strcmp(out[0].name, "z") && out[0].precise == 1);
}

int main(void)
{
	RUN(random_round_trips);
	RUN(extremes_fit_and_round_trip);
	RUN(defaults);
	RUN(hand_made_strings);
	RUN(file_names);
	RUN(environment);
	RUN(job_environment);
	RUN(counters_string);
	TEST_EXIT();
}
