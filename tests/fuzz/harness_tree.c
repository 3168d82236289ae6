/* SPDX-License-Identifier: MIT
 *
 * harness_tree.c — see harness_tree.h.  Included by the fuzz target
 * (fuzz_tree.c) and by tests/unit/test_fuzz_tree.c, so both run exactly the
 * same code.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/exp_data.h"
#include "format/exp_launch.h"
#include "model/model.h"
#include "report/report.h"
#include "symbols/sym.h"
#include "harness_tree.h"

#define MAX_PROCS 8
#define MAX_FILES 16

/* The pristine tree, read once: each process's directory name ("" for the
 * founder) and its files (name, bytes). */
static struct tree_proc {
	char dir[64];
	struct tree_file {
		const char *name;
		uint8_t *data;
		size_t size;
	} files[MAX_FILES];
	size_t nfiles;
} procs[MAX_PROCS];
static size_t nprocs;

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			uint8_t *q = realloc(buf, cap = cap ? 2 * cap : 4096);
			if (!q)
				break;
			buf = q;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		if (!got)
			break;
		n += got;
	}
	fclose(f);
	*size = n;
	return buf;
}

static void read_proc(const char *src, const char *sub)
{
	struct tree_proc *p = &procs[nprocs++];
	char path[512];
	const char *name;

	snprintf(p->dir, sizeof(p->dir), "%s", sub);
	for (size_t i = 0; (name = exp_dir_file(i)) && p->nfiles < MAX_FILES; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", src, sub, name);
		size_t size;
		uint8_t *data = slurp(path, &size);
		if (data)
			p->files[p->nfiles++] = (struct tree_file){ name, data, size };
	}
}

static int load_source(const char *src)
{
	DIR *d = opendir(src);
	struct dirent *de;

	if (!d)
		return -1;
	read_proc(src, "");
	while ((de = readdir(d)) && nprocs < MAX_PROCS)
		if (de->d_name[0] == '_')
			read_proc(src, de->d_name);
	closedir(d);
	return 0;
}

/* Empty the scratch tree: every file of every process directory. */
static void clear(const char *dir)
{
	char path[512];
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			clear(path);
			rmdir(path);
		} else {
			unlink(path);
		}
	}
	if (d)
		closedir(d);
}

/* The working copy of one file: its bytes (NULL: removed). */
struct work_file {
	uint8_t *data;
	size_t size;
	bool removed;
	bool directory;                 /* a directory stands where the file was */
	bool fifo;                      /* a FIFO does (opening it would block) */
};

static void apply(struct work_file w[MAX_PROCS][MAX_FILES], const uint8_t *op)
{
	size_t p = op[1] % nprocs, f = op[2] % procs[p].nfiles;
	struct work_file *x = &w[p][f];

	switch (op[0] % 7) {
	case 0:                                 /* a file goes missing */
		x->removed = true;
		break;
	case 1:                                 /* a file is cut short */
		x->size = x->size * op[3] / 256;
		break;
	case 2: {                               /* two files change places */
		size_t q = (p + op[3] / 16) % nprocs, g = (f + op[3]) % procs[q].nfiles;
		struct work_file t = w[q][g];
		w[q][g] = *x;
		*x = t;
		break;
	}
	case 3:                                 /* a byte is wrong */
		if (x->size) {
			size_t at = x->size * op[3] / 256;
			x->data[at] ^= (uint8_t)(op[3] | 1);
		}
		break;
	case 4:                                 /* a whole process's files go */
		for (size_t i = 0; i < procs[p].nfiles; i++)
			w[p][i].removed = true;
		break;
	case 5:                                 /* a directory or a FIFO where a file was */
		x->directory = !(op[3] & 1);
		x->fifo = op[3] & 1;
		break;
	default:                                /* a file is the same file twice */
		if (x->size >= 128) {
			size_t half = x->size / 2 & ~(size_t)7;
			memcpy(x->data + half, x->data, x->size - half < half ? x->size - half : half);
		}
	}
}

static void quiet(const char *msg)
{
	(void)msg;
}

int fuzz_tree_one(const uint8_t *data, size_t size)
{
	static char dir[64];
	static struct work_file w[MAX_PROCS][MAX_FILES];
	char path[512];
	struct exp_experiment e;
	struct exp_error err;
	int rc = 1;

	if (!nprocs && load_source(TREE_SOURCE) != 0)
		return 1;
	if (!dir[0]) {
		/* In memory where there is /dev/shm: thousands of small trees. */
		struct stat st;
		snprintf(dir, sizeof(dir), "%s/tally-fuzz-tree.%d",
			 stat("/dev/shm", &st) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
		mkdir(dir, 0700);
		sym_set_warning_handler(quiet);    /* the tree names objects long gone */
	}
	clear(dir);
	for (size_t p = 0; p < nprocs; p++)
		for (size_t f = 0; f < procs[p].nfiles; f++) {
			free(w[p][f].data);
			w[p][f].data = malloc(procs[p].files[f].size + 1);
			memcpy(w[p][f].data, procs[p].files[f].data, procs[p].files[f].size);
			w[p][f].size = procs[p].files[f].size;
			w[p][f].removed = w[p][f].directory = w[p][f].fifo = false;
		}
	for (size_t i = 0; i + 4 <= size && i < 64; i += 4)
		apply(w, data + i);
	for (size_t p = 0; p < nprocs; p++) {
		snprintf(path, sizeof(path), "%s/%s", dir, procs[p].dir);
		mkdir(path, 0700);
		for (size_t f = 0; f < procs[p].nfiles; f++) {
			if (w[p][f].removed)
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s", dir, procs[p].dir, procs[p].files[f].name);
			if (w[p][f].directory || w[p][f].fifo) {
				if (w[p][f].directory ? mkdir(path, 0700) : mkfifo(path, 0600))
					abort();
				continue;
			}
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (fd < 0 || write(fd, w[p][f].data, w[p][f].size) != (ssize_t)w[p][f].size)
				abort();
			close(fd);
		}
	}

	if (exp_experiment_load(&e, dir, &err) == 0) {
		struct model m;
		char msg[256];
		rc = 0;
		if (model_build(&m, &e, 1, &(struct model_options){ 0 }, msg, sizeof(msg)) == 0) {
			FILE *null = fopen("/dev/null", "w");
			struct report_opts o = { .fmt = REPORT_JSON, .nmetrics = 1 };
			struct report_doc *d = report_doc_new(null, REPORT_JSON);
			report_overview(d, &m, &e, 1);
			report_functions(d, &m, &o);
			report_tree(d, &m, &o);
			report_processes(d, &m, &o);
			report_doc_end(d);
			report_collapsed(null, &m, MODEL_CPU);
			fclose(null);
		}
		model_free(&m);
	} else if (!strchr(err.msg, ':')) {
		abort();        /* every error names its file */
	}
	exp_experiment_free(&e);
	return rc;
}
