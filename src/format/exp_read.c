/* SPDX-License-Identifier: MIT
 *
 * exp_read.c — walking a record file (see exp_read.h and exp_records.h).
 *
 * Trusts nothing in the file: the header is checked against what this reader
 * understands, each record's length against the block it lives in and the
 * end of the file.  A zero word ends the records of a block.  A record whose
 * framing is wrong is skipped to the next valid point: the first 8-byte
 * boundary after it from which the rest of the block reads as a chain of
 * well-framed records (ending at the block's end, or in zeros to it), else
 * the next block boundary (records never cross one, but a large one, which
 * starts there).  The skipped bytes are counted in f->damage; a staging
 * block's MIRROR is believed only if the block it names holds what a copy of
 * the staging block leaves there.
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

/* A copy of a staging block may differ from it in this many bytes (it or
 * the copy corrupt), and must match this many of its nonzero ones. */
#define COPY_MISMATCH_MAX 8
#define COPY_MATCH_MIN 4
#define EXP_READ_SMALL_BYTES (256u << 10)   /* files up to this size are read, not mapped */

int exp_corrupt(struct exp_error *err, const char *path, size_t offset,
		const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err->msg, sizeof(err->msg), "%s: at 0x%zx: ", path, offset);

	if (n < 0 || (size_t)n >= sizeof(err->msg))
		n = 0;
	err->offset = offset;
	err->cause = err->msg + n;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EXP_ECORRUPT;
}

int exp_fail(struct exp_error *err, const char *path, int rc, const char *cause)
{
	int n = snprintf(err->msg, sizeof(err->msg), "%s: ", path);

	if (n < 0 || (size_t)n >= sizeof(err->msg))
		n = 0;
	snprintf(err->msg + n, sizeof(err->msg) - (size_t)n, "%s", cause);
	err->cause = err->msg + n;
	err->offset = 0;
	return rc;
}

void exp_damage_note(struct exp_damage *d, exp_damage_fn *hook, void *arg, const char *path,
		     size_t offset, uint64_t bytes, const char *cause)
{
	if (!d->places && offset == EXP_DAMAGE_WHOLE_FILE)
		snprintf(d->first, sizeof(d->first), "%s: %s", path, cause);
	else if (!d->places)
		snprintf(d->first, sizeof(d->first), "%s: at 0x%zx: %s", path, offset, cause);
	d->places++;
	d->bytes += bytes;
	if (hook)
		hook(arg, path, offset, bytes, cause);
}

void exp_damage_add(struct exp_damage *to, const struct exp_damage *from)
{
	if (!to->places && from->places)
		snprintf(to->first, sizeof(to->first), "%s", from->first);
	to->places += from->places;
	to->bytes += from->bytes;
}

/* Count [pos, end) of f as damaged for `cause` (printf-like). */
__attribute__((format(printf, 4, 0)))
static void note_v(struct exp_file *f, size_t pos, size_t end, const char *fmt, va_list ap)
{
	char cause[512];

	vsnprintf(cause, sizeof(cause), fmt, ap);
	const char *path = f->path;
	size_t at = pos;
	if (f->origin_split && pos >= f->origin_split && f->origin2_path) {
		path = f->origin2_path;
		at = pos - f->origin_split + f->origin2_off;
	} else if (f->origin_split) {
		at = pos + f->origin_off;
	}
	exp_damage_note(&f->damage, f->on_damage, f->damage_arg, path, at, end > pos ? end - pos : 0, cause);
}

/* Does the rest of q's block read as records: a chain of words with a
 * type, a length that is a multiple of 8 and stays in the block, ending at
 * the block's end or at a zero word followed by zeros only? */
static bool chain_from(const struct exp_file *f, size_t q, size_t end)
{
	while (q + 4 <= end) {
		uint32_t word, len;
		memcpy(&word, f->data + q, 4);
		if (!word) {
			for (size_t k = q; k < end; k++)
				if (f->data[k])
					return false;
			return true;
		}
		len = EXP_REC_LEN(word);
		if (!EXP_REC_TYPE(word) || len < 8 || len % 8 || len > end - q)
			return false;
		q += len;
	}
	return q == end;
}

/* Skip the bad record at pos to the next valid point of its block (see the
 * top of this file), counting what is skipped. */
__attribute__((format(printf, 3, 0)))
static void skip_bad(struct exp_file *f, size_t pos, const char *fmt, va_list ap)
{
	size_t bs = f->hdr.block_bytes, block_end = (pos / bs + 1) * bs;
	size_t end = block_end < f->size ? block_end : f->size, q;

	for (q = pos + 8; q < end; q += 8)
		if (chain_from(f, q, end))
			break;
	note_v(f, pos, q < end ? q : end, fmt, ap);
	f->pos = q < end ? q : block_end;
}

__attribute__((format(printf, 3, 4)))
static void skip_block(struct exp_file *f, size_t pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	skip_bad(f, pos, fmt, ap);
	va_end(ap);
}

void exp_file_reject_block(struct exp_file *f, const struct exp_rec *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	skip_bad(f, r->offset, fmt, ap);
	va_end(ap);
}

void exp_file_reject_record(struct exp_file *f, const struct exp_rec *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note_v(f, r->offset, r->offset + r->len, fmt, ap);
	va_end(ap);
}

/* Does block d hold what copying block w there leaves: a prefix of w's
 * bytes (a copy cut short, or whole), then zeros?  Their MIRROR records (the
 * first 16 bytes, where a copy names itself) are not compared.  The prefix
 * runs to d's last nonzero byte; it may differ from w in a few bytes (a
 * corrupt byte in either), but must match at least a few nonzero ones, so
 * that a block of other records is never taken for a copy. */
static bool is_copy(const struct exp_file *f, size_t w, size_t d)
{
	const size_t bs = f->hdr.block_bytes;
	const uint8_t *a = f->data + w * bs, *b = f->data + d * bs;
	size_t na = f->size - w * bs < bs ? f->size - w * bs : bs;
	size_t nb = f->size - d * bs < bs ? f->size - d * bs : bs;
	size_t end = nb, mismatch = 0, matched = 0;

	while (end > sizeof(struct exp_mirror) && !b[end - 1])
		end--;
	if (end <= sizeof(struct exp_mirror))
		return true;                    /* nothing copied yet */
	for (size_t k = sizeof(struct exp_mirror); k < end && mismatch <= COPY_MISMATCH_MAX; k++) {
		if (k < na && a[k] == b[k])
			matched += b[k] != 0;
		else
			mismatch++;
	}
	return mismatch <= COPY_MISMATCH_MAX && matched >= COPY_MATCH_MIN;
}

/* Does block d start as a copy does: with a MIRROR word, or a zero one (its
 * copy not begun)?  Asked of a block named by a damaged MIRROR. */
static bool starts_as_copy(const struct exp_file *f, size_t d)
{
	uint32_t word;

	memcpy(&word, f->data + d * f->hdr.block_bytes, 4);
	return !word || (EXP_REC_TYPE(word) == EXP_REC_MIRROR && EXP_REC_LEN(word) == sizeof(struct exp_mirror));
}

/* Mark the blocks that staging blocks stand for.  A staging block starts
 * with a MIRROR naming a later block, which holds nothing yet, or a copy of
 * it (the writer was killed while copying), or lies past the end of the file.
 * Corruption: a staging block whose MIRROR word is damaged is still known by
 * the copy its block names; one whose block number is damaged has its copy
 * searched among the later blocks that name themselves (copies do); a MIRROR
 * naming another block that is no copy of it is counted as damage (both
 * blocks are read). */
static void find_mirrors(struct exp_file *f)
{
	const size_t bs = f->hdr.block_bytes;
	size_t nblocks = (f->size + bs - 1) / bs;

	for (size_t b = 1; b < nblocks; b++) {
		struct exp_mirror m;
		if (b * bs + sizeof(m) > f->size)
			break;
		memcpy(&m, f->data + b * bs, sizeof(m));
		bool mirror = EXP_REC_TYPE(m.word) == EXP_REC_MIRROR && EXP_REC_LEN(m.word) == sizeof(m);
		if (m.block > b && m.block < nblocks && (mirror || starts_as_copy(f, m.block)) &&
		    is_copy(f, b, m.block)) {
			f->skip[m.block] = 1;
			continue;
		}
		if (!mirror || m.block == b)
			continue;               /* not a MIRROR, or a copy (it names itself) */
		size_t d;
		for (d = b + 1; d < nblocks; d++) {
			struct exp_mirror c;
			if (d * bs + sizeof(c) > f->size)
				break;
			memcpy(&c, f->data + d * bs, sizeof(c));
			if (c.word == m.word && c.block == d && is_copy(f, b, d))
				break;
		}
		char cause[160];
		if (d < nblocks && d * bs + sizeof(m) <= f->size) {
			f->skip[d] = 1;
			snprintf(cause, sizeof(cause), "a MIRROR names block %llu; its copy is block %zu",
				 (unsigned long long)m.block, d);
		} else if (m.block < b) {
			snprintf(cause, sizeof(cause), "a MIRROR names block %llu, before its own",
				 (unsigned long long)m.block);
		} else if (m.block < nblocks) {
			snprintf(cause, sizeof(cause), "a MIRROR names block %llu, which holds other records",
				 (unsigned long long)m.block);
		} else {
			continue;               /* a block not written yet */
		}
		exp_damage_note(&f->damage, f->on_damage, f->damage_arg, f->path, b * bs, 0, cause);
	}
}

int exp_header_check(const struct exp_file_header *h, const char *path, size_t at, uint32_t kind,
		     struct exp_error *err)
{
	if (memcmp(h->magic, EXP_MAGIC, 8) != 0)
		return exp_corrupt(err, path, at, "not a tally experiment file (bad magic)");
	if (h->version > EXP_FORMAT_VERSION && h->version <= EXP_FORMAT_VERSION + 8) {
		int n = snprintf(err->msg, sizeof(err->msg), "%s: ", path);
		if (n < 0 || (size_t)n >= sizeof(err->msg))
			n = 0;
		err->offset = at + 8;
		err->cause = err->msg + n;
		err->version = h->version;
		snprintf(err->msg + n, sizeof(err->msg) - (size_t)n,
			 "format version %u is newer than this tally reads (versions %d to %d): "
			 "read it with the tally that recorded it, or a newer one",
			 h->version, EXP_FORMAT_OLDEST, EXP_FORMAT_VERSION);
		return -EXP_ENEWER;
	}
	if (h->version < EXP_FORMAT_OLDEST || h->version > EXP_FORMAT_VERSION)
		return exp_corrupt(err, path, at + 8, "format version %u, this tally reads versions %d to %d",
				   h->version, EXP_FORMAT_OLDEST, EXP_FORMAT_VERSION);
	if (kind && h->kind != kind)
		return exp_corrupt(err, path, at + 12, "file kind %u, expected %u", h->kind, kind);
	if (h->header_bytes != EXP_HEADER_BYTES)
		return exp_corrupt(err, path, at + 20, "header size %u, expected %d", h->header_bytes,
				   EXP_HEADER_BYTES);
	if (h->block_bytes < 4096 || h->block_bytes > (1u << 24) || (h->block_bytes & (h->block_bytes - 1)))
		return exp_corrupt(err, path, at + 16, "block size %u is not a power of two in 4 KiB..16 MiB",
				   h->block_bytes);
	return 0;
}

int exp_file_open(struct exp_file *f, const char *path, uint32_t kind,
		  struct exp_error *err)
{
	struct stat st;

	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", path);
	err->cause = NULL;
	/* Non-blocking: a FIFO left in an experiment must not hang us. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		int e = errno;
		return e == ENOENT ? -e : exp_fail(err, path, -e, strerror(e));
	}
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return exp_fail(err, path, -e, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return exp_fail(err, path, -EINVAL, "not a regular file");
	}
	f->size = (size_t)st.st_size;
	if (f->size < EXP_HEADER_BYTES) {
		close(fd);
		return exp_corrupt(err, path, 0, "file of %zu bytes is shorter than its %d-byte header",
				   f->size, EXP_HEADER_BYTES);
	}
	/* A small file is read: unmapping it again costs more than reading it
	 * (a TLB shootdown on every CPU the process ran on; a job's 10,000
	 * ranks have 50,000 small files). */
	void *p;
	if (f->size <= EXP_READ_SMALL_BYTES) {
		p = malloc(f->size);
		size_t got = 0;
		ssize_t r = 1;
		while (p && got < f->size && (r = pread(fd, (char *)p + got, f->size - got, (off_t)got)) != 0) {
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				break;
			got += (size_t)r;
		}
		bool ours = !p;         /* our own allocation: -ENOMEM refuses the load */
		int e = !p ? ENOMEM : r < 0 ? errno : 0;
		close(fd);
		if (e || got < f->size) {
			free(p);
			/* The read's own errno; a file cut while read is EIO, and
			 * so is a read's ENOMEM: it costs that file only. */
			return exp_fail(err, path, e == ENOMEM && !ours ? -EIO : e ? -e : -EIO,
					e ? strerror(e) : "shorter than it was a moment ago (truncated while read)");
		}
	} else {
		p = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
		int e = errno;
		close(fd);
		if (p == MAP_FAILED) {
			char cause[128];
			snprintf(cause, sizeof(cause), "mmap: %s", strerror(e));
			/* mmap's ENOMEM (ulimit -v, vm.max_map_count, a file larger
			 * than the address space left) is this file's failure, not
			 * an allocation of ours: -EIO costs that file only (read as
			 * damage, the cause named); -ENOMEM would refuse the load. */
			return exp_fail(err, path, e == ENOMEM ? -EIO : -e, cause);
		}
		f->mapped = true;
	}
	f->data = p;
	memcpy(&f->hdr, p, sizeof(f->hdr));
	int rc = exp_header_check(&f->hdr, path, 0, kind, err);
	if (!rc && !(f->skip = calloc((f->size + f->hdr.block_bytes - 1) / f->hdr.block_bytes, 1))) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", path);
		rc = -ENOMEM;
	}
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

	(void)err;
	if (!f->mirrors_found) {                /* now: the damage hook is set */
		f->mirrors_found = true;
		find_mirrors(f);
	}
	while (f->pos + 4 <= f->size) {
		size_t pos = f->pos;
		size_t block_end = (pos / bs + 1) * bs;
		uint32_t word;

		memcpy(&word, f->data + pos, 4);
		if (word == 0 || f->skip[pos / bs]) {   /* unused, or mirrored */
			f->pos = block_end;
			continue;
		}
		uint32_t type = EXP_REC_TYPE(word), len = EXP_REC_LEN(word);
		bool large = pos % bs == 0;
		if (len < 8 || len % 8) {
			skip_block(f, pos, "record length %u is not a multiple of 8 >= 8", len);
			continue;
		}
		if (!large && pos + len > block_end) {
			skip_block(f, pos, "record of %u bytes crosses its block end at 0x%zx", len, block_end);
			continue;
		}
		if (len > f->size - pos) {
			skip_block(f, pos, "record of %u bytes runs past the end of the file (%zu bytes)",
				   len, f->size);
			continue;
		}
		if (type == EXP_REC_MIRROR) {
			if (pos % bs || len != sizeof(struct exp_mirror))
				skip_block(f, pos, "a MIRROR record of %u bytes at 0x%zx into its block", len,
					   pos % bs);
			else
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
	if (f->data && f->mapped)
		munmap((void *)f->data, f->size);
	else
		free((void *)f->data);
	f->data = NULL;
	f->mapped = false;
	free(f->skip);
	f->skip = NULL;
}

/* The counters' vocabulary: the name in logs, JSON and CSV, and how the
 * overview says it (a title, and what the count is). */
static const struct {
	const char *name, *title, *meaning;
} counters[EXP_CTR_COUNT_] = {
	[EXP_CTR_SAMPLES] = { "samples", "Samples written", "clock samples" },
	[EXP_CTR_LOST_REENTRY] = { "lost.reentry", "Lost (busy)",
				   "samples whose signal came while the collector was busy" },
	[EXP_CTR_LOST_BUFFER] = { "lost.no-space", "Lost (no space)",
				  "samples and events with no block free to write them" },
	[EXP_CTR_UNWIND_BROKEN] = { "unwind.broken", "Broken stacks",
				    "stacks cut short by a frame that could not be read" },
	[EXP_CTR_UNWIND_TRUNCATED] = { "unwind.truncated", "Truncated stacks",
				       "stacks deeper than the depth limit, cut" },
	[EXP_CTR_STACK_TABLE_FULL] = { "stacks.not-deduplicated", "Stacks not shared",
				       "stacks written whole: the stack table was full" },
	[EXP_CTR_STACK_CROWDED] = { "stacks.crowded", "Stacks not shared (crowded)",
				    "stacks written whole: the 32 slots their key may take in the "
				    "stack table were taken, the table not full" },
	[EXP_CTR_FOREIGN_SIGNALS] = { "signals.forwarded", "Signals forwarded",
				      "profiling signals passed on to the program's own handler" },
	[EXP_CTR_NO_THREAD_STATE] = { "lost.unknown-thread", "Lost (no thread)",
				      "samples in threads the collector had not set up" },
	[EXP_CTR_COLLECTOR_NS] = { "collector.cpu_ns", "Collector CPU", "ns of CPU the collector used" },
	[EXP_CTR_UNSAMPLED_THREADS] = { "threads.unsampled", "Unsampled threads",
					"threads that ran for periods without a sample" },
	[EXP_CTR_UNSAMPLED_NS] = { "unsampled.cpu_ns", "Unsampled CPU", "ns those threads ran unsampled" },
	[EXP_CTR_LOST_EVENTS] = { "lost.trace-events", "Lost trace events",
				  "trace events dropped for want of space" },
	[EXP_CTR_ARCS_LOST] = { "lost.arcs", "Lost arcs", "call arcs dropped: a table could not grow" },
	[EXP_CTR_FORKS] = { "descendants", "Descendants", "processes forked" },
	[EXP_CTR_EXECS] = { "execs", "Execs", "images exec'd" },
	[EXP_CTR_STATES_LOST] = { "lost.switches", "Lost switches",
				  "context switches the kernel dropped (its ring buffer was full)" },
	[EXP_CTR_STATES_NO_STACK] = { "states.no-stack", "States, no stack",
				      "off-CPU intervals whose stack was not taken" },
	[EXP_CTR_COUNTER_LOST] = { "lost.counter-samples", "Lost (counters)",
				   "counter overflows whose sample was dropped" },
	[EXP_CTR_MPI_UNTRACKED] = { "mpi.untracked-requests", "MPI untracked",
				    "MPI requests completed whose start was not traced" },
	[EXP_CTR_MPI_UNKNOWN_PEER] = { "mpi.unknown-peers", "MPI unknown peers",
				       "peers not translated to MPI_COMM_WORLD ranks" },
	[EXP_CTR_DYN_LOST] = { "dyn.code-not-copied", "JIT code not kept",
			       "dynamic functions whose code was not copied whole" },
	[EXP_CTR_FDS_REPLACED] = { "fds.replaced", "Descriptors reset",
				   "the collector's files found replaced by the program, reopened" },
	[EXP_CTR_LOST_LIMIT] = { "lost.size-limit", "Lost (size limit)",
				 "samples and events not recorded once the size limit was reached" },
	[EXP_CTR_BYTES] = { "experiment.bytes", "Experiment bytes", "bytes the experiment claimed" },
	[EXP_CTR_LIMIT_NS] = { "size-limit.reached_ns", "Size limit", "when the size limit was reached" },
	[EXP_CTR_JAVA_UNNAMED] = { "java.unnamed-methods", "Unnamed methods",
				   "Java methods sampled that could not be named" },
	[EXP_CTR_JAVA_LOST] = { "lost.java", "Lost (Java)", "Java frames or JVM events not recorded" },
	[EXP_CTR_LOST_NOFILE] = { "lost.no-descriptor", "Lost (ulimit -n)",
				  "samples and events not recorded: the program held every descriptor "
				  "its limit allows" },
	[EXP_CTR_TRACED_UNWOUND] = { "stacks.traced-unwound", "Stacks walked",
				     "traced events (-H, -s, -i) whose stack was unwound, not found "
				     "in the thread's memo of stacks met before" },
};

const char *exp_counter_name(enum exp_counter c)
{
	return (unsigned)c < EXP_CTR_COUNT_ && counters[c].name ? counters[c].name : "unknown";
}

const char *exp_counter_title(enum exp_counter c, const char **meaning)
{
	bool known = (unsigned)c < EXP_CTR_COUNT_ && counters[c].name;

	*meaning = known ? counters[c].meaning : "a counter this tally does not know";
	return known ? counters[c].title : "Unknown counter";
}
