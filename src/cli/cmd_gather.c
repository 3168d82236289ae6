/* SPDX-License-Identifier: MIT
 *
 * cmd_gather.c — `tally gather [-o JOB] [--partial] [--rsh CMD] SOURCE...`:
 * bring an MPI job's rank experiments together from the hosts that wrote
 * them (docs/mpi.md "Several hosts").  A SOURCE is `HOST:DIR`, fetched by
 * running `CMD HOST "cd DIR && tar -cf - rank*.exp"` (CMD: ssh, or the
 * launch agent the job was started with) and unpacking the stream here, or
 * a `DIR` this machine sees (a shared file system), copied the same way by
 * a local tar.  Only `rankN.exp` directories are taken: each is a whole
 * experiment.
 *
 * Everything is unpacked into a staging directory inside JOB first; then
 * the ranks are checked: each rank once (a rank from two sources, or
 * already in JOB, is refused), and every rank of the job there — the job's
 * size is what MPI_Init told the ranks (`mpi.size` in their logs), else
 * what the launcher did (`job.size`), else the highest rank + 1.  A partial job is refused, naming the missing ranks and
 * the sources that gave nothing and why, unless --partial; a refused
 * gather leaves JOB as it was.  Then the ranks are renamed into JOB.
 * Exit: 0 gathered (with --partial, also a partial job: one warning line),
 * 2 refused or failed (one line per cause), 64 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "format/exp_job.h"

#define CMD "gather"

extern char **environ;

enum { OPT_HELP = 1, OPT_OUTPUT, OPT_PARTIAL, OPT_RSH };

static const struct cli_opt options[] = {
	{ "output", 'o', CLI_ARG_REQUIRED, OPT_OUTPUT, "JOB", "the job's directory (default: the first source's name, here)" },
	{ "partial", 0, CLI_ARG_NONE, OPT_PARTIAL, NULL, "gather a job that misses ranks (one warning line naming them)" },
	{ "rsh", 0, CLI_ARG_REQUIRED, OPT_RSH, "CMD",
	  "how to run a command on HOST: `CMD HOST COMMAND` (default: $TALLY_RSH, else ssh)" },
	{ "help", 'h', CLI_ARG_NONE, OPT_HELP, NULL, "this help" },
};

const struct cli_opt *cmd_gather_options(size_t *n)
{
	*n = CLI_NOPTS(options);
	return options;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: tally gather [-o JOB] [--partial] [--rsh CMD] SOURCE...\n"
		   "  bring an MPI job's rankN.exp experiments together into JOB; a SOURCE is\n"
		   "  HOST:DIR (fetched with `CMD HOST \"cd DIR && tar -cf - rank*.exp\"`) or a\n"
		   "  DIR this machine sees; a job missing ranks (of its MPI_COMM_WORLD size) or\n"
		   "  holding one twice is refused, naming them, and JOB left as it was\n"
		   "exit status: 0 gathered, 2 refused or failed, 64 usage\n");
	cli_args_help(f, options, CLI_NOPTS(options));
}

/* One source, once fetched. */
struct source {
	const char *spec;          /* as given: HOST:DIR or DIR */
	char stage[PATH_MAX];      /* where its ranks were unpacked */
	char why[300];             /* why it gave nothing ("" if it did) */
	size_t nranks;
};

/* One rank found, in a source or already in JOB. */
struct found {
	int32_t rank;
	int32_t size;              /* mpi.size of its log, or 0 */
	long src;                  /* sources[] index, -1: already in JOB */
	char *dir;
	char host[64];
};

/* `s` single-quoted for sh into out (cap bytes); false if it does not fit. */
static bool quote(char *out, size_t cap, const char *s)
{
	size_t n = 0;

	if (cap < 3)
		return false;
	out[n++] = '\'';
	for (; *s; s++) {
		const char *piece = *s == '\'' ? "'\\''" : (char[2]){ *s, 0 };
		size_t len = strlen(piece);
		if (n + len + 2 > cap)
			return false;
		memcpy(out + n, piece, len);
		n += len;
	}
	out[n++] = '\'';
	out[n] = 0;
	return true;
}

/* The first line of file `path` into out ("" if none). */
static void first_line(const char *path, char *out, size_t cap)
{
	FILE *f = fopen(path, "r");

	out[0] = 0;
	if (f) {
		if (!fgets(out, (int)cap, f))
			out[0] = 0;
		out[strcspn(out, "\n")] = 0;
		fclose(f);
	}
}

/* Run `sh -c producer | tar -C stage -xf -`, both stderrs to errpath.
 * Returns 0, or -1 with s->why filled. */
static int fetch(struct source *s, const char *producer, const char *errpath)
{
	int fds[2], err = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	pid_t pp = -1, cp = -1;
	posix_spawn_file_actions_t pa, ca;
	int pst = 0, cst = 0;

	if (err < 0 || pipe2(fds, O_CLOEXEC)) {
		snprintf(s->why, sizeof(s->why), "%s", strerror(errno));
		if (err >= 0)
			close(err);
		return -1;
	}
	char *pargv[] = { "sh", "-c", (char *)producer, NULL };
	char *cargv[] = { "tar", "-C", s->stage, "-xf", "-", NULL };
	posix_spawn_file_actions_init(&pa);
	posix_spawn_file_actions_adddup2(&pa, fds[1], 1);
	posix_spawn_file_actions_adddup2(&pa, err, 2);
	posix_spawn_file_actions_addopen(&pa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_init(&ca);
	posix_spawn_file_actions_adddup2(&ca, fds[0], 0);
	posix_spawn_file_actions_adddup2(&ca, err, 2);
	posix_spawn_file_actions_addopen(&ca, 1, "/dev/null", O_WRONLY, 0);
	int rp = posix_spawnp(&pp, "sh", &pa, NULL, pargv, environ);
	int rc = rp ? rp : posix_spawnp(&cp, "tar", &ca, NULL, cargv, environ);
	posix_spawn_file_actions_destroy(&pa);
	posix_spawn_file_actions_destroy(&ca);
	close(fds[0]);
	close(fds[1]);
	close(err);
	if (pp > 0)
		waitpid(pp, &pst, 0);
	if (cp > 0)
		waitpid(cp, &cst, 0);
	if (rc) {
		snprintf(s->why, sizeof(s->why), "cannot run %s: %s", rp ? "sh" : "tar", strerror(rc));
		return -1;
	}
	if (pst || cst) {
		char line[240];
		first_line(errpath, line, sizeof(line));
		if (WIFEXITED(pst) && WEXITSTATUS(pst))
			snprintf(s->why, sizeof(s->why), "%s (exit %d)", line[0] ? line : "fetching failed",
				 WEXITSTATUS(pst));
		else
			snprintf(s->why, sizeof(s->why), "%s", line[0] ? line : "fetching failed");
		return -1;
	}
	return 0;
}

/* The value of `key: ` in experiment dir's log.txt into out ("" if none). */
static void log_value(const char *dir, const char *key, char *out, size_t cap)
{
	char path[PATH_MAX + 16], line[512];
	size_t klen = strlen(key);
	FILE *f;

	out[0] = 0;
	snprintf(path, sizeof(path), "%s/log.txt", dir);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':' && line[klen + 1] == ' ') {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, cap, "%s", line + klen + 2);
			break;
		}
	fclose(f);
}

/* The ranks of the job directory `dir` (a stage or JOB) appended to *f. */
static int collect(const char *dir, long src, struct found **f, size_t *n, size_t *cap)
{
	struct exp_job j;
	struct exp_error e = { 0 };
	int rc = exp_job_open(&j, dir, &e);

	if (rc < 0) {
		cli_error(CMD, "%s", e.msg);
		return -1;
	}
	for (size_t i = 0; rc == 1 && i < j.nranks; i++) {
		char v[64];
		if (*n == *cap) {
			size_t c = *cap ? 2 * *cap : 16;
			struct found *g = realloc(*f, c * sizeof(*g));
			if (!g) {
				exp_job_free(&j);
				cli_error(CMD, "out of memory");
				return -1;
			}
			*f = g;
			*cap = c;
		}
		struct found *x = &(*f)[(*n)++];
		memset(x, 0, sizeof(*x));
		x->rank = j.ranks[i].rank;
		x->src = src;
		x->dir = strdup(j.ranks[i].dir);
		log_value(x->dir, "mpi.size", v, sizeof(v));
		if (!v[0])             /* killed before MPI_Init: the launcher's word */
			log_value(x->dir, "job.size", v, sizeof(v));
		x->size = (int32_t)atol(v);
		log_value(x->dir, "job.host", x->host, sizeof(x->host));
		if (!x->host[0])
			log_value(x->dir, "mpi.processor", x->host, sizeof(x->host));
		if (!x->host[0])
			log_value(x->dir, "host", x->host, sizeof(x->host));
		if (!x->dir) {
			exp_job_free(&j);
			cli_error(CMD, "out of memory");
			return -1;
		}
	}
	if (rc == 1)
		exp_job_free(&j);
	return 0;
}

static int cmp_found(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->src < y->src ? -1 : x->src > y->src;
}

/* Append "a-b" or "a" (after a comma if out is not empty). */
static void add_range(char *out, size_t cap, int32_t a, int32_t b)
{
	size_t n = strlen(out);

	if (n + 40 >= cap) {
		if (n + 4 < cap && !strstr(out, "..."))
			strcat(out, ",...");
		return;
	}
	snprintf(out + n, cap - n, "%s%d%s", n ? "," : "", a, "");
	if (b > a)
		snprintf(out + strlen(out), cap - strlen(out), "-%d", b);
}

/* Remove directory tree `path` (the stage): `rm -rf`, spawned. */
static void remove_tree(const char *path)
{
	char *argv[] = { "rm", "-rf", (char *)path, NULL };
	pid_t pid;
	int st;

	if (!posix_spawnp(&pid, "rm", NULL, NULL, argv, environ))
		waitpid(pid, &st, 0);
}

/* The default JOB: the last component of the first source's DIR. */
static const char *default_job(const char *spec)
{
	const char *colon = strchr(spec, ':'), *slash = strchr(spec, '/');
	const char *dir = colon && (!slash || colon < slash) ? colon + 1 : spec;
	size_t len = strlen(dir);

	while (len > 1 && dir[len - 1] == '/')
		len--;
	const char *base = dir + len;
	while (base > dir && base[-1] != '/')
		base--;
	static char name[NAME_MAX + 1];
	snprintf(name, sizeof(name), "%.*s", (int)(dir + len - base), base);
	return name;
}

int cmd_gather(int argc, char **argv)
{
	const char *out = NULL, *rsh = getenv("TALLY_RSH"), *val;
	bool partial = false;
	struct source *src = calloc((size_t)argc + 1, sizeof(*src));
	size_t nsrc = 0, nfound = 0, capfound = 0;
	struct found *found = NULL;
	char stage[PATH_MAX], errpath[PATH_MAX + 8];
	struct cli_args a;
	int rc = CLI_FATAL, id;
	bool made_job = false, made_stage = false;

	if (!src) {
		cli_error(CMD, "out of memory");
		return CLI_FATAL;
	}
	if (!rsh || !*rsh)
		rsh = "ssh";
	cli_args_init(&a, CMD, argc, argv, options, CLI_NOPTS(options));
	while ((id = cli_args_next(&a, &val)) != CLI_ARGS_END) {
		if (id == CLI_ARGS_ERROR) {
			free(src);
			return CLI_USAGE;
		} else if (id == OPT_HELP) {
			usage(stdout);
			free(src);
			return cli_finish_stdout(CMD, CLI_OK);
		} else if (id == OPT_OUTPUT) {
			out = val;
		} else if (id == OPT_PARTIAL) {
			partial = true;
		} else if (id == OPT_RSH) {
			rsh = val;
		} else {
			src[nsrc++].spec = val;
		}
	}
	if (!nsrc) {
		usage(stderr);
		free(src);
		return CLI_USAGE;
	}
	if (!out)
		out = default_job(src[0].spec);
	if (!*out || !strcmp(out, "/")) {
		cli_error(CMD, "%s: no job name: give -o JOB", src[0].spec);
		free(src);
		return CLI_USAGE;
	}
	if (mkdir(out, 0777) == 0)
		made_job = true;
	else if (errno != EEXIST) {
		cli_error(CMD, "%s: cannot make the job's directory: %s", out, strerror(errno));
		free(src);
		return CLI_FATAL;
	}
	snprintf(stage, sizeof(stage), "%s/.gather.%ld", out, (long)getpid());
	snprintf(errpath, sizeof(errpath), "%s/err", stage);
	if (mkdir(stage, 0700)) {
		cli_error(CMD, "%s: cannot make a staging directory: %s", stage, strerror(errno));
		goto out;
	}
	made_stage = true;
	/* The ranks already in JOB (the host that gathers may hold its own). */
	if (collect(out, -1, &found, &nfound, &capfound))
		goto out;
	char outreal[PATH_MAX];
	if (!realpath(out, outreal))
		outreal[0] = 0;
	for (size_t i = 0; i < nsrc; i++) {
		struct source *s = &src[i];
		const char *spec = s->spec, *colon = strchr(spec, ':'), *slash = strchr(spec, '/');
		bool remote = colon && (!slash || colon < slash);
		const char *dir = remote ? colon + 1 : spec;
		char qdir[PATH_MAX * 4 + 8], inner[PATH_MAX * 4 + 64], qinner[PATH_MAX * 16 + 64];
		char qhost[512], producer[PATH_MAX * 16 + 1024], real[PATH_MAX];

		snprintf(s->stage, sizeof(s->stage), "%s/%zu", stage, i);
		if (mkdir(s->stage, 0700)) {
			cli_error(CMD, "%s: %s", s->stage, strerror(errno));
			goto out;
		}
		if (!remote && outreal[0] && realpath(dir, real) && !strcmp(real, outreal))
			continue;          /* JOB itself: its ranks are counted already */
		if (!quote(qdir, sizeof(qdir), *dir ? dir : ".")) {
			snprintf(s->why, sizeof(s->why), "name too long");
			continue;
		}
		snprintf(inner, sizeof(inner), "cd %s && tar -cf - rank*.exp", qdir);
		if (remote) {
			char host[256];
			if ((size_t)(colon - spec) >= sizeof(host)) {
				snprintf(s->why, sizeof(s->why), "host name too long");
				continue;
			}
			snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
			if (!quote(qhost, sizeof(qhost), host) || !quote(qinner, sizeof(qinner), inner)) {
				snprintf(s->why, sizeof(s->why), "name too long");
				continue;
			}
			snprintf(producer, sizeof(producer), "%s %s %s", rsh, qhost, qinner);
		} else {
			snprintf(producer, sizeof(producer), "%s", inner);
		}
		if (fetch(s, producer, errpath))
			continue;
		size_t before = nfound;
		if (collect(s->stage, (long)i, &found, &nfound, &capfound))
			goto out;
		s->nranks = nfound - before;
		if (!s->nranks)
			snprintf(s->why, sizeof(s->why), "no rankN.exp experiment there");
	}
	if (nfound)
		qsort(found, nfound, sizeof(*found), cmp_found);
	/* Each rank once; the job's size; what is missing. */
	int32_t size = 0;
	size_t twice = 0;
	const struct found *dup[2] = { NULL, NULL };
	for (size_t i = 0; i < nfound; i++) {
		struct found *x = &found[i];
		size = x->size > size ? x->size : size;
		size = x->rank + 1 > size ? x->rank + 1 : size;
		if (i && found[i - 1].rank == x->rank && !twice++) {
			dup[0] = &found[i - 1];
			dup[1] = x;
		}
	}
	if (twice) {
		cli_error(CMD, "rank %d is in both %s and %s%s", dup[1]->rank,
			  dup[0]->src < 0 ? out : src[dup[0]->src].spec,
			  dup[1]->src < 0 ? out : src[dup[1]->src].spec,
			  twice > 1 ? " (and more ranks twice: gather each host's ranks once)" : "");
		goto out;
	}
	char missing[400] = "";
	int32_t nmissing = 0;
	for (int32_t r = 0, k = 0; r < size;) {
		while ((size_t)k < nfound && found[k].rank < r)
			k++;
		if ((size_t)k < nfound && found[k].rank == r) {
			r++;
			continue;
		}
		int32_t end = (size_t)k < nfound ? found[k].rank - 1 : size - 1;
		add_range(missing, sizeof(missing), r, end);
		nmissing += end - r + 1;
		r = end + 1;
	}
	char gave_none[1200] = "";
	for (size_t i = 0; i < nsrc; i++) {
		size_t n = strlen(gave_none);
		if (src[i].why[0] && n + 8 < sizeof(gave_none))
			snprintf(gave_none + n, sizeof(gave_none) - n, "; %s: %s", src[i].spec, src[i].why);
	}
	if (!nfound) {
		cli_error(CMD, "%s: no rank experiments gathered%s", out, gave_none);
		goto out;
	}
	if (nmissing && !partial) {
		cli_error(CMD, "%s: ranks %s of %d missing (not gathered: --partial to gather the rest)%s", out,
			  missing, size, gave_none);
		goto out;
	}
	for (size_t i = 0; i < nsrc; i++)
		if (src[i].why[0] && !nmissing)
			cli_warn(CMD, "%s: %s (the job is whole without it)", src[i].spec, src[i].why);
	if (nmissing)
		cli_warn(CMD, "%s: ranks %s of %d missing (--partial: gathered the rest)%s", out, missing,
			  size, gave_none);
	/* Into JOB. */
	for (size_t i = 0; i < nfound; i++) {
		struct found *x = &found[i];
		char to[PATH_MAX + 32];
		if (x->src < 0)
			continue;
		snprintf(to, sizeof(to), "%s/rank%d.exp", out, x->rank);
		if (rename(x->dir, to)) {
			cli_error(CMD, "%s: cannot move into %s: %s", x->dir, to, strerror(errno));
			goto out;
		}
	}
	/* One line per host: which ranks it gave. */
	printf("%s: ranks ", out);
	char all[400] = "";
	for (size_t i = 0; i < nfound;) {
		size_t k = i;
		while (k + 1 < nfound && found[k + 1].rank == found[k].rank + 1)
			k++;
		add_range(all, sizeof(all), found[i].rank, found[k].rank);
		i = k + 1;
	}
	printf("%s of %d", all, size);
	for (size_t i = 0; i < nfound;) {
		size_t k = i;
		char ranks[200] = "";
		while (k < nfound && !strcmp(found[k].host, found[i].host))
			k++;
		for (size_t m = i; m < k;) {
			size_t e = m;
			while (e + 1 < k && found[e + 1].rank == found[e].rank + 1)
				e++;
			add_range(ranks, sizeof(ranks), found[m].rank, found[e].rank);
			m = e + 1;
		}
		printf("%s %s: %s", i ? "," : ";", found[i].host[0] ? found[i].host : "?", ranks);
		i = k;
	}
	printf("\n");
	rc = cli_finish_stdout(CMD, CLI_OK);
out:
	if (made_stage)
		remove_tree(stage);
	if (rc != CLI_OK && made_job)
		rmdir(out);
	for (size_t i = 0; i < nfound; i++)
		free(found[i].dir);
	free(found);
	free(src);
	return rc;
}
