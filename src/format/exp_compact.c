/* SPDX-License-Identifier: MIT
 *
 * exp_compact.c — a finished record file rewritten densely (see
 * exp_compact.h): read with exp_file_next, written through a 1 MiB buffer
 * (or, for a file of at most EXP_COMPACT_IN_PLACE_MAX bytes, into memory
 * and then over the file itself) with the block rules of exp_records.h
 * applied to each record.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/exp_compact.h"

#define OUT_BUFFER (1u << 20)

/* The file being written. */
struct out {
	int fd;                     /* -1: into memory (buf grows, never flushed) */
	uint64_t pos;               /* bytes written so far */
	uint32_t bs;                /* block size */
	int err;                    /* errno of the first failure, 0 */
	char *buf;                  /* OUT_BUFFER bytes, flushed when full */
	size_t used;
	size_t cap;                 /* in memory: buf's size */
};

static void flush(struct out *o)
{
	if (o->fd < 0)
		return;
	if (o->used && !o->err) {
		ssize_t n = write(o->fd, o->buf, o->used);
		if (n != (ssize_t)o->used)
			o->err = n < 0 ? errno : ENOSPC;
	}
	o->used = 0;
}

static void emit(struct out *o, const void *p, size_t len)
{
	if (o->fd < 0) {                /* in memory: the buffer is the file's size */
		o->pos += len;
		if (!o->err && o->used + len <= o->cap) {
			memcpy(o->buf + o->used, p, len);
			o->used += len;
		} else {
			o->err = EFBIG;
		}
		return;
	}
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

/* Append one record under the block rules: one that does not fit in what is
 * left of the block goes to the next block (the rest stays zero); one
 * larger than a block starts at a boundary and the next record starts at
 * the boundary after it. */
static void put_record(struct out *o, const void *rec, uint32_t len)
{
	uint64_t in_block = o->pos % o->bs;

	if (len > o->bs - in_block && in_block)
		pad_to(o, o->pos - in_block + o->bs);
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
	uint32_t fit = (uint32_t)((r->len - sizeof(t)) / sizeof(struct exp_arc));
	uint32_t nslots = t.nslots < fit ? t.nslots : fit;

	for (uint32_t i = 0; i < nslots; i++)
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
	for (uint32_t i = 0, k = 0; i < nslots; i++)
		if (slots[i].frompc)
			memcpy(&c->slots[k++], &slots[i], sizeof(struct exp_arc));
	return c;
}

/* A sample run cut to the bytes it used (it took the rest of its block when
 * it began); a copy, with its length.  NULL if out of memory. */
static void *shrink_run(const struct exp_rec *r, uint32_t *len)
{
	struct exp_sample_run h;

	memcpy(&h, r->p, sizeof(h));
	bool fits = h.used <= r->len - sizeof(h);   /* if not, the report will say so */
	*len = fits ? (uint32_t)(sizeof(h) + h.used + 7) & ~7u : r->len;
	struct exp_sample_run *c = calloc(1, *len);
	if (!c)
		return NULL;
	memcpy(c, r->p, fits ? sizeof(h) + h.used : r->len);
	c->word = EXP_REC_WORD(EXP_REC_SAMPLE_RUN, *len);
	return c;
}

/* Cut the zeros after the last record.  Returns 0, 1 (does not parse), or
 * -errno. */
static int trim_tail(struct exp_file *f, struct exp_error *err)
{
	struct exp_rec r;
	size_t end = 0;
	int rc = 0;

	/* Walk back from the end to the last block that holds a record. */
	const size_t bs = f->hdr.block_bytes;
	for (size_t b = (f->size + bs - 1) / bs; b-- > 0 && !end && rc == 0;) {
		f->pos = b ? b * bs : EXP_HEADER_BYTES;
		while ((rc = exp_file_next(f, &r, err)) > 0)
			end = r.offset + r.len;    /* records may end in zero bytes */
	}
	if (rc < 0 || f->damage.places)
		return 1;
	if (!end)
		end = EXP_HEADER_BYTES;
	/* A block inside a large record (a heap table of 12 MiB, say) can
	 * read as records of its own: the end found there is false, and the
	 * cut went through the table (test_heapscale).  Only zeros are cut. */
	for (size_t i = end; i < f->size; i++)
		if (((const unsigned char *)f->data)[i])
			return 0;
	if (end < f->size && truncate(f->path, (off_t)end) != 0) {
		int e = errno;
		snprintf(err->msg, sizeof(err->msg), "%s: truncate: %s", f->path, strerror(e));
		return -e;
	}
	return 0;
}

/* Write every record of f into o; 0, 1 (does not parse) or -ENOMEM. */
static int copy_records(struct exp_file *f, struct out *o, struct exp_error *err)
{
	struct exp_rec r;
	int rc;

	emit(o, f->data, EXP_HEADER_BYTES);
	while ((rc = exp_file_next(f, &r, err)) > 0) {
		bool arcs = r.type == EXP_REC_ARC_TABLE && r.len >= sizeof(struct exp_arc_table);
		bool run = r.type == EXP_REC_SAMPLE_RUN && r.len >= sizeof(struct exp_sample_run);
		if (arcs || run) {
			uint32_t len;
			void *c = arcs ? shrink_arcs(&r, &len) : shrink_run(&r, &len);
			if (!c) {
				snprintf(err->msg, sizeof(err->msg), "%s: out of memory", f->path);
				return -ENOMEM;
			}
			put_record(o, c, len);
			free(c);
		} else {
			put_record(o, r.p, r.len);
		}
	}
	flush(o);
	return rc < 0 || f->damage.places ? 1 : 0;     /* keep a damaged file as it is */
}

/* Write `len` bytes of `buf` at offset 0 of `fd`; 0 or an errno. */
static int write_all(int fd, const char *buf, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = pwrite(fd, buf + done, len - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		done += (size_t)n;
	}
	return 0;
}

/* A small file compacted over itself: the dense image made in memory,
 * written at offset 0 and the file cut to it.  No new file, no rename:
 * each would cost an inode made and one freed per file (on ext4 with no
 * journal every inode made then steps over the recently freed ones), and
 * a rename over a file flushes the new one to disk.  If the write fails
 * (no space for unwritten extents, I/O error), the original bytes are
 * written back.  Returns 0, 1 (does not parse: left as it is), 2 (its
 * image would not fit in the buffer: nothing done), or -errno with `err`. */
static int compact_in_place(struct exp_file *f, const char *path, struct exp_error *err)
{
	/* Dense, the records take no more than they did; a block more for
	 * the rounding of a large record's start. */
	size_t cap = f->size + f->hdr.block_bytes;
	struct out o = { -1, 0, f->hdr.block_bytes, 0, malloc(cap), 0, cap };
	char *orig = malloc(f->size ? f->size : 1);
	size_t orig_len = f->size;
	int rc;

	if (!o.buf || !orig) {
		free(o.buf);
		free(orig);
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", path);
		return -ENOMEM;
	}
	memcpy(orig, f->data, orig_len);
	rc = copy_records(f, &o, err);
	if (rc || o.err) {      /* damaged; or larger than the buffer: rewritten beside */
		free(o.buf);
		free(orig);
		return rc ? rc : 2;     /* not expected: cap holds every image */
	}
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int e = fd < 0 ? errno : write_all(fd, o.buf, o.used);
	if (!e && ftruncate(fd, (off_t)o.used) != 0)
		e = errno;
	if (e && fd >= 0 && write_all(fd, orig, orig_len) == 0)
		(void)ftruncate(fd, (off_t)orig_len);   /* as it was */
	if (fd >= 0 && close(fd) != 0 && !e)
		e = errno;
	free(o.buf);
	free(orig);
	if (e) {
		snprintf(err->msg, sizeof(err->msg), "%s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

int exp_file_compact(const char *path, struct exp_error *err)
{
	struct exp_file f;
	char tmp[PATH_MAX + 16];
	int rc = exp_file_open(&f, path, 0, err);

	if (rc == -EXP_ECORRUPT)
		return 1;
	if (rc)
		return rc;
	if (f.size <= f.hdr.block_bytes) {     /* one block: left as it is (exp_compact.h) */
		exp_file_close(&f);
		return 0;
	}
	if (f.size > EXP_COMPACT_REWRITE_MAX && f.hdr.kind != EXP_FILE_ARCS) {
		rc = trim_tail(&f, err);
		exp_file_close(&f);
		return rc;
	}
	if (f.size <= EXP_COMPACT_IN_PLACE_MAX) {
		rc = compact_in_place(&f, path, err);
		exp_file_close(&f);
		if (rc != 2)
			return rc;
		if ((rc = exp_file_open(&f, path, 0, err)) != 0)
			return rc == -EXP_ECORRUPT ? 1 : rc;
	}
	snprintf(tmp, sizeof(tmp), "%s.compact", path);
	struct out o = { open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), 0,
			 f.hdr.block_bytes, 0, malloc(OUT_BUFFER), 0, OUT_BUFFER };
	if (o.fd < 0 || !o.buf) {
		rc = o.fd < 0 ? -errno : -ENOMEM;
		snprintf(err->msg, sizeof(err->msg), "%s: %s", o.fd < 0 ? tmp : path, strerror(-rc));
		if (o.fd >= 0) {
			close(o.fd);
			unlink(tmp);
		}
		free(o.buf);
		exp_file_close(&f);
		return rc;
	}
	rc = copy_records(&f, &o, err);
	exp_file_close(&f);
	free(o.buf);
	if (close(o.fd) != 0 && !o.err)
		o.err = errno;
	if (!rc && o.err) {
		snprintf(err->msg, sizeof(err->msg), "%s: %s", tmp, strerror(o.err));
		rc = -o.err;
	}
	if (!rc && rename(tmp, path) != 0) {
		rc = -errno;
		snprintf(err->msg, sizeof(err->msg), "%s: rename: %s", tmp, strerror(-rc));
	}
	if (rc)
		unlink(tmp);
	return rc;
}
