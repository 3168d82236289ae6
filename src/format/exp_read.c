/* SPDX-License-Identifier: MIT
 *
 * exp_read.c — walking a record file (see exp_read.h and exp_records.h).
 *
 * Trusts nothing in the file: the header is checked against what this reader
 * understands, each record's length against the block it lives in and the
 * end of the file.  A zero word ends the records of a block.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/exp_read.h"

int exp_corrupt(struct exp_error *err, const char *path, size_t offset,
		const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err->msg, sizeof(err->msg), "%s: at 0x%zx: ", path, offset);

	if (n < 0 || (size_t)n >= sizeof(err->msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EXP_ECORRUPT;
}

/* Mark the blocks that staging blocks stand for: a MIRROR record opens a
 * block, and a record larger than a block covers the ones it spans. */
static int find_mirrors(struct exp_file *f, struct exp_error *err)
{
	const size_t bs = f->hdr.block_bytes;
	size_t nblocks = (f->size + bs - 1) / bs;

	f->skip = calloc(nblocks, 1);
	if (!f->skip) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", f->path);
		return -ENOMEM;
	}
	for (size_t b = 0; b < nblocks; b++) {
		size_t pos = b ? b * bs : EXP_HEADER_BYTES;
		struct exp_mirror m;
		if (pos + sizeof(m) > f->size)
			break;
		memcpy(&m, f->data + pos, sizeof(m));
		uint32_t len = EXP_REC_LEN(m.word);
		if (EXP_REC_TYPE(m.word) == EXP_REC_MIRROR && len == sizeof(m)) {
			if (m.block > b && m.block < nblocks)
				f->skip[m.block] = 1;
		} else if (m.word && b && len > bs) {
			b += (len - 1) / bs;            /* a large record */
		}
	}
	return 0;
}

int exp_file_open(struct exp_file *f, const char *path, uint32_t kind,
		  struct exp_error *err)
{
	struct stat st;

	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e != ENOENT)
			snprintf(err->msg, sizeof(err->msg), "%s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) != 0) {
		int e = errno;
		snprintf(err->msg, sizeof(err->msg), "%s: %s", path, strerror(e));
		close(fd);
		return -e;
	}
	f->size = (size_t)st.st_size;
	if (f->size < EXP_HEADER_BYTES) {
		close(fd);
		return exp_corrupt(err, path, 0, "file of %zu bytes is shorter than its %d-byte header",
				   f->size, EXP_HEADER_BYTES);
	}
	void *p = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(err->msg, sizeof(err->msg), "%s: mmap: %s", path, strerror(errno));
		return -EIO;
	}
	f->data = p;
	memcpy(&f->hdr, p, sizeof(f->hdr));
	int rc = 0;
	if (memcmp(f->hdr.magic, EXP_MAGIC, 8) != 0)
		rc = exp_corrupt(err, path, 0, "not a tally experiment file (bad magic)");
	else if (f->hdr.version < EXP_FORMAT_OLDEST || f->hdr.version > EXP_FORMAT_VERSION)
		rc = exp_corrupt(err, path, 8, "format version %u, this tally reads versions %d to %d",
				 f->hdr.version, EXP_FORMAT_OLDEST, EXP_FORMAT_VERSION);
	else if (kind && f->hdr.kind != kind)
		rc = exp_corrupt(err, path, 12, "file kind %u, expected %u", f->hdr.kind, kind);
	else if (f->hdr.header_bytes != EXP_HEADER_BYTES)
		rc = exp_corrupt(err, path, 20, "header size %u, expected %d",
				 f->hdr.header_bytes, EXP_HEADER_BYTES);
	else if (f->hdr.block_bytes < 4096 || f->hdr.block_bytes > (1u << 24) ||
		 (f->hdr.block_bytes & (f->hdr.block_bytes - 1)))
		rc = exp_corrupt(err, path, 16, "block size %u is not a power of two in 4 KiB..16 MiB",
				 f->hdr.block_bytes);
	if (!rc)
		rc = find_mirrors(f, err);
	if (rc) {
		exp_file_close(f);
		return rc;
	}
	f->pos = EXP_HEADER_BYTES;
	return 0;
}

int exp_file_next(struct exp_file *f, struct exp_rec *rec, struct exp_error *err)
{
	const size_t bs = f->hdr.block_bytes;

	while (f->pos + 4 <= f->size) {
		size_t pos = f->pos;
		size_t block_end = (pos / bs + 1) * bs;
		uint32_t word;

		if (pos % 8)
			return exp_corrupt(err, f->path, pos, "record not 8-byte aligned");
		memcpy(&word, f->data + pos, 4);
		if (word == 0 || f->skip[pos / bs]) {   /* unused, or mirrored */
			f->pos = block_end;
			continue;
		}
		uint32_t type = EXP_REC_TYPE(word), len = EXP_REC_LEN(word);
		if (len < 8 || len % 8)
			return exp_corrupt(err, f->path, pos, "record length %u is not a multiple of 8 >= 8", len);
		bool large = pos % bs == 0;
		if (!large && pos + len > block_end)
			return exp_corrupt(err, f->path, pos, "record of %u bytes crosses its block end at 0x%zx",
					   len, block_end);
		if (len > f->size - pos)
			return exp_corrupt(err, f->path, pos, "record of %u bytes runs past the end of the file (%zu bytes)",
					   len, f->size);
		if (type == EXP_REC_MIRROR) {
			f->pos = pos + len;
			continue;
		}
		rec->type = type;
		rec->len = len;
		rec->offset = pos;
		rec->p = f->data + pos;
		size_t next = pos + len;
		if (large && next > block_end)
			next = (next + bs - 1) / bs * bs;
		f->pos = next;
		return 1;
	}
	return 0;
}

void exp_file_close(struct exp_file *f)
{
	if (f->data)
		munmap((void *)f->data, f->size);
	f->data = NULL;
	free(f->skip);
	f->skip = NULL;
}

const char *exp_counter_name(enum exp_counter c)
{
	static const char *const names[EXP_CTR_COUNT_] = {
		[EXP_CTR_SAMPLES] = "samples",
		[EXP_CTR_LOST_REENTRY] = "lost.reentry",
		[EXP_CTR_LOST_BUFFER] = "lost.no-space",
		[EXP_CTR_UNWIND_BROKEN] = "unwind.broken",
		[EXP_CTR_UNWIND_TRUNCATED] = "unwind.truncated",
		[EXP_CTR_STACK_TABLE_FULL] = "stacks.not-deduplicated",
		[EXP_CTR_FOREIGN_SIGNALS] = "signals.forwarded",
		[EXP_CTR_NO_THREAD_STATE] = "lost.unknown-thread",
		[EXP_CTR_COLLECTOR_NS] = "collector.cpu_ns",
		[EXP_CTR_LOST_EVENTS] = "lost.trace-events",
		[EXP_CTR_ARCS_LOST] = "lost.arcs",
		[EXP_CTR_FORKS] = "descendants",
		[EXP_CTR_EXECS] = "execs",
		[EXP_CTR_MPI_UNTRACKED] = "mpi.untracked-requests",
		[EXP_CTR_MPI_UNKNOWN_PEER] = "mpi.unknown-peers",
		[EXP_CTR_FDS_REPLACED] = "fds.replaced",
		[EXP_CTR_LOST_LIMIT] = "lost.size-limit",
		[EXP_CTR_BYTES] = "experiment.bytes",
		[EXP_CTR_LIMIT_NS] = "size-limit.reached_ns",
	};
	return (unsigned)c < EXP_CTR_COUNT_ && names[c] ? names[c] : "unknown";
}
