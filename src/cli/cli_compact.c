/* SPDX-License-Identifier: MIT
 *
 * cli_compact.c — after the run, rewrite each record file densely.
 *
 * While a process runs, its threads claim blocks, and runs of blocks, ahead
 * of need: a thread that ends, or writes little, leaves zeros behind, and an
 * arc table is mostly empty slots.  Once the process has ended nobody writes
 * its files any more, so each is rewritten with its records packed block
 * after block (the format's rules: a record that does not fit leaves the rest
 * of its block zero; a record larger than a block starts at a block
 * boundary), arc tables cut down to the smallest power of two that holds
 * their used slots, and nothing after the last record.  The new file is
 * renamed over the old one: a report reading meanwhile sees one or the other.
 * A file over 16 MiB only loses the zeros after its last record: rewriting
 * it would cost more than it saves.  A file that does not parse is left as
 * it is (the report will say why).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "format/exp_read.h"

#define OUT_BUFFER (1u << 20)

struct out {
	int fd;
	uint64_t pos;               /* bytes written so far */
	uint32_t bs;
	bool failed;
	char *buf;                  /* OUT_BUFFER bytes, flushed when full */
	size_t used;
};

static void flush(struct out *o)
{
	if (o->used && !o->failed && write(o->fd, o->buf, o->used) != (ssize_t)o->used)
		o->failed = true;
	o->used = 0;
}

static void emit(struct out *o, const void *p, size_t len)
{
	o->pos += len;
	while (len) {
		size_t n = OUT_BUFFER - o->used < len ? OUT_BUFFER - o->used : len;
		memcpy(o->buf + o->used, p, n);
		o->used += n;
		p = (const char *)p + n;
		len -= n;
		if (o->used == OUT_BUFFER)
			flush(o);
	}
}

static void pad_to(struct out *o, uint64_t pos)
{
	static const char zeros[4096];

	while (o->pos < pos) {
		size_t n = pos - o->pos < sizeof(zeros) ? (size_t)(pos - o->pos) : sizeof(zeros);
		emit(o, zeros, n);
	}
}

/* Append one record under the block rules. */
static void put_record(struct out *o, const void *rec, uint32_t len)
{
	uint64_t in_block = o->pos % o->bs;

	if (len > o->bs - in_block && in_block)
		pad_to(o, o->pos - in_block + o->bs);     /* next block */
	bool large = len > o->bs;
	emit(o, rec, len);
	if (large && o->pos % o->bs)
		pad_to(o, o->pos - o->pos % o->bs + o->bs);
}

/* An arc table with only its used slots, in the smallest table that holds
 * them; written in place of the original.  NULL if out of memory. */
static void *shrink_arcs(const struct exp_rec *r, uint32_t *len)
{
	struct exp_arc_table t;
	memcpy(&t, r->p, sizeof(t));
	const struct exp_arc *slots = (const void *)((const char *)r->p + sizeof(t));
	uint32_t used = 0, n = 1;

	for (uint32_t i = 0; i < t.nslots; i++)
		used += slots[i].frompc != 0;
	while (n < used)
		n *= 2;
	*len = (uint32_t)(sizeof(t) + (size_t)n * sizeof(struct exp_arc));
	struct exp_arc_table *c = calloc(1, *len);
	if (!c)
		return NULL;
	*c = t;
	c->word = EXP_REC_WORD(EXP_REC_ARC_TABLE, *len);
	c->nslots = n;
	for (uint32_t i = 0, k = 0; i < t.nslots; i++)
		if (slots[i].frompc)
			memcpy(&c->slots[k++], &slots[i], sizeof(struct exp_arc));
	return c;
}

/* A big file is not worth rewriting (what runs leave unused is small next to
 * it): just cut the zeros after its last record. */
#define REWRITE_MAX (16u << 20)

static void trim_tail(const char *path)
{
	struct exp_file f;
	struct exp_rec r;
	struct exp_error err;
	size_t end = 0;
	int rc = 0;

	if (exp_file_open(&f, path, 0, &err) != 0)
		return;
	/* Walk back from the end to the last block that holds a record. */
	const size_t bs = f.hdr.block_bytes;
	for (size_t b = (f.size + bs - 1) / bs; b-- > 0 && !end && rc == 0;) {
		f.pos = b ? b * bs : EXP_HEADER_BYTES;
		while ((rc = exp_file_next(&f, &r, &err)) > 0)
			end = r.offset + r.len;    /* records may end in zero bytes */
	}
	size_t size = f.size;
	exp_file_close(&f);
	if (!end)
		end = EXP_HEADER_BYTES;
	if (rc == 0 && end < size && truncate(path, (off_t)end) != 0)
		return;
}

static void compact_file(const char *path)
{
	struct exp_file f;
	struct exp_rec r;
	struct exp_error err;
	char tmp[PATH_MAX + 16];

	if (exp_file_open(&f, path, 0, &err) != 0)
		return;
	if (f.size > REWRITE_MAX && f.hdr.kind != EXP_FILE_ARCS) {
		exp_file_close(&f);
		trim_tail(path);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.compact", path);
	struct out o = { open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), 0,
			 f.hdr.block_bytes, false, malloc(OUT_BUFFER), 0 };
	if (o.fd < 0 || !o.buf) {
		if (o.fd >= 0) {
			close(o.fd);
			unlink(tmp);
		}
		free(o.buf);
		exp_file_close(&f);
		return;
	}
	emit(&o, f.data, EXP_HEADER_BYTES);
	int rc;
	while ((rc = exp_file_next(&f, &r, &err)) > 0) {
		if (r.type == EXP_REC_ARC_TABLE && r.len >= sizeof(struct exp_arc_table)) {
			uint32_t len;
			void *c = shrink_arcs(&r, &len);
			if (!c) {
				o.failed = true;
				break;
			}
			put_record(&o, c, len);
			free(c);
		} else {
			put_record(&o, r.p, r.len);
		}
	}
	exp_file_close(&f);
	flush(&o);
	free(o.buf);
	if (close(o.fd) != 0 || o.failed || rc < 0 || rename(tmp, path) != 0)
		unlink(tmp);
}

/* Has the process that wrote `dir` ended?  Its log names its pid. */
static bool process_ended(const char *dir)
{
	char path[PATH_MAX + 16], line[256];

	snprintf(path, sizeof(path), "%s/log.txt", dir);
	FILE *f = fopen(path, "r");
	long pid = 0;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "pid: ", 5))
			pid = atol(line + 5);
	fclose(f);
	return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static void compact_dir(const char *dir)
{
	static const char *const files[] = { "samples.dat", "stacks.dat", "maps.dat", "threads.dat",
					     "heap.dat", "sync.dat", "io.dat", "arcs.dat" };
	char path[PATH_MAX + 32];

	if (!process_ended(dir))
		return;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (access(path, F_OK) == 0)
			compact_file(path);
	}
}

void cli_compact(const char *expdir)
{
	char sub[PATH_MAX + 300];
	DIR *d = opendir(expdir);
	struct dirent *de;

	compact_dir(expdir);
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (de->d_name[0] != '_' || n < 5 || strcmp(de->d_name + n - 4, ".exp"))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", expdir, de->d_name);
		compact_dir(sub);
	}
	if (d)
		closedir(d);
}
