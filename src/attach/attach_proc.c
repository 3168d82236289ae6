/* SPDX-License-Identifier: MIT
 *
 * attach_proc.c — what /proc says about a process: its mappings, its status
 * fields, its threads.  Reading these never stops or changes the process.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attach/attach.h"

int attach_maps_read(pid_t pid, struct attach_maps *m)
{
	char path[64], line[PATH_MAX + 256];
	size_t cap = 0;

	m->v = NULL;
	m->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct attach_map e;
		int pos = 0;
		memset(&e, 0, sizeof(e));
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n", &e.start,
			   &e.end, e.perms, &e.offset, &e.dev_major, &e.dev_minor, &e.inode, &pos) < 7)
			continue;
		char *p = line + pos;
		p[strcspn(p, "\n")] = 0;
		snprintf(e.path, sizeof(e.path), "%s", p);
		if (m->n == cap) {
			size_t ncap = cap ? 2 * cap : 256;
			struct attach_map *v = realloc(m->v, ncap * sizeof(*v));
			if (!v) {
				fclose(f);
				attach_maps_free(m);
				return -ENOMEM;
			}
			m->v = v;
			cap = ncap;
		}
		m->v[m->n++] = e;
	}
	fclose(f);
	return 0;
}

void attach_maps_free(struct attach_maps *m)
{
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

const struct attach_map *attach_maps_find(const struct attach_maps *m, uint64_t addr)
{
	for (size_t i = 0; i < m->n; i++)
		if (addr >= m->v[i].start && addr < m->v[i].end)
			return &m->v[i];
	return NULL;
}

const char *attach_map_base(const struct attach_map *m)
{
	const char *s = strrchr(m->path, '/');

	return s ? s + 1 : m->path;
}

int attach_status_field(pid_t pid, pid_t tid, const char *key, char *out, size_t len)
{
	char path[96], line[1024];
	size_t klen = strlen(key);
	int rc = -ENOENT;

	if (tid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		char *v = line + klen + 1;
		while (isspace((unsigned char)*v))
			v++;
		v[strcspn(v, "\n")] = 0;
		snprintf(out, len, "%s", v);
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

int attach_threads(pid_t pid, pid_t *tids, int max)
{
	char path[64];
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	if (max > 0)
		tids[n++] = pid;          /* the main thread first: usually the safest */
	for (struct dirent *e; (e = readdir(d)) && n < max;) {
		pid_t t = (pid_t)atoi(e->d_name);
		if (t > 0 && t != pid)
			tids[n++] = t;
	}
	closedir(d);
	return n;
}
