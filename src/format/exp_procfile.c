/* SPDX-License-Identifier: MIT
 *
 * exp_procfile.c — a descendant's process file (see exp_procfile.h and the
 * layout in exp_records.h).  Analyzer side only: every length is checked
 * against the bytes at hand before it is used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/exp_launch.h"
#include "format/exp_procfile.h"

size_t exp_procfile_stem(const char *name)
{
	size_t n = strlen(name), sfx = strlen(EXP_PROC_SUFFIX);

	return name[0] == '_' && n > sfx + 1 && !strcmp(name + n - sfx, EXP_PROC_SUFFIX) ? n - sfx : 0;
}

bool exp_procfile_beside(const char *dir, const char *exp_name)
{
	char path[8400];
	struct stat st;
	size_t n = strlen(exp_name);

	if (n < 5 || strcmp(exp_name + n - 4, ".exp"))
		return false;
	snprintf(path, sizeof(path), "%s/%.*s%s", dir, (int)(n - 4), exp_name, EXP_PROC_SUFFIX);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int exp_procfile_next(const uint8_t *data, size_t size, size_t *at, struct exp_procfile_item *it)
{
	if (*at >= size)
		return 0;
	const uint8_t *c = data + *at;
	size_t left = size - *at;
	if (*c) {                          /* a log line */
		const uint8_t *nl = memchr(c, '\n', left);
		if (!nl)
			return -1;
		it->is_record = false;
		it->text = (const char *)c;
		it->len = (size_t)(nl - c);
		*at += it->len + 1;
		return 1;
	}
	uint32_t word = 0;                 /* a NUL, a record, a newline */
	if (left >= 5)
		memcpy(&word, c + 1, 4);
	uint32_t len = EXP_REC_LEN(word);
	if (left < 5 || len < 8 || len > EXP_PROC_REC_MAX || len % 8 || left < (size_t)len + 2 || c[1 + len] != '\n')
		return -1;
	memcpy(it->buf, c + 1, len);
	it->is_record = true;
	it->rec.type = EXP_REC_TYPE(word);
	it->rec.len = len;
	it->rec.offset = *at + 1;
	it->rec.p = it->buf;
	*at += (size_t)len + 2;
	return 1;
}

/* The whole of `path` (at most 256 MiB), malloc'd; -errno. */
static int read_whole(const char *path, uint8_t **data, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 28)) {
		close(fd);
		return -EINVAL;
	}
	*data = malloc((size_t)st.st_size + 1);
	ssize_t got = *data ? pread(fd, *data, (size_t)st.st_size, 0) : -1;
	int e = errno;
	close(fd);
	if (got < 0) {
		free(*data);
		*data = NULL;
		return -(e ? e : ENOMEM);
	}
	*size = (size_t)got;
	return 0;
}

/* Is `h` a process file's head (magic, kind, a version this reader takes)? */
static bool proc_head(const uint8_t *h, size_t n)
{
	struct exp_file_header fh;

	if (n < EXP_PROC_HEAD_BYTES)
		return false;
	memcpy(&fh, h, sizeof(fh));
	return !memcmp(fh.magic, EXP_MAGIC, 8) && fh.kind == EXP_PROC_KIND;
}

int exp_procfile_join(const struct exp_procfile_src *src, uint8_t **data, size_t *size, char *why,
		      size_t why_len)
{
	uint8_t *slot = NULL, *file = NULL;
	size_t slot_n = 0, file_n = 0;
	int rc = 0;

	*data = NULL;
	*size = 0;
	why[0] = 0;
	if (src->slots) {
		int fd = open(src->slots, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		slot = fd >= 0 ? calloc(1, EXP_SLOT_BYTES) : NULL;
		ssize_t got = slot ? pread(fd, slot, EXP_SLOT_BYTES, (off_t)src->slot_off) : -1;
		rc = fd < 0 ? -errno : got < 0 ? -EIO : 0;
		if (fd >= 0)
			close(fd);
		if (rc)
			goto out;
		slot_n = (size_t)got;
		while (slot_n && !slot[slot_n - 1])      /* every item ends in '\n' */
			slot_n--;
		if (!proc_head(slot, slot_n)) {
			snprintf(why, why_len, "a slot whose head is not a process file's");
			rc = -EINVAL;
			goto out;
		}
	}
	if (src->file) {
		rc = read_whole(src->file, &file, &file_n);
		if (rc == -ENOENT && slot) {
			rc = 0;                 /* the slot alone */
		} else if (rc) {
			goto out;
		} else if (!proc_head(file, file_n)) {
			snprintf(why, why_len, "not a process file's head");
			rc = -EINVAL;
			goto out;
		}
	}
	if (!slot) {
		*data = file;
		*size = file_n;
		return file ? 0 : -ENOENT;
	}
	size_t more = file ? file_n - EXP_PROC_HEAD_BYTES : 0;
	*data = malloc(slot_n + more + 1);
	if (!*data) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(*data, slot, slot_n);
	if (more)
		memcpy(*data + slot_n, file + EXP_PROC_HEAD_BYTES, more);
	*size = slot_n + more;
out:
	free(slot);
	free(file);
	return rc;
}

static int by_lineage(const void *a, const void *b)
{
	const struct exp_procslot *x = a, *y = b;
	int c = strcmp(x->lineage, y->lineage);

	return c ? c : (x->off > y->off) - (x->off < y->off);
}

/* A lineage as the collector writes them ("_f1_x1", "_r3"...): '_' first,
 * then letters, digits and '_' only.  A damaged slot's may name anything
 * ("_/../../x"): it is then named by its place, never used as a path. */
static bool lineage_ok(const uint8_t *v, size_t len)
{
	if (!len || v[0] != '_')
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(v[i] == '_' || (v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'z') ||
		      (v[i] >= 'A' && v[i] <= 'Z')))
			return false;
	return true;
}

struct exp_procslot *exp_procslots_list(const char *root, size_t *n)
{
	char path[4200];
	struct exp_file_header h;
	struct stat st;

	*n = 0;
	snprintf(path, sizeof(path), "%s/%s", root, EXP_SLOTS_NAME);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, EXP_MAGIC, 8) || h.kind != EXP_SLOTS_KIND) {
		close(fd);
		return NULL;
	}
	size_t cap = (size_t)st.st_size / EXP_SLOT_BYTES + 1, used = 0;
	struct exp_procslot *list = calloc(cap, sizeof(*list));
	uint8_t head[EXP_PROC_HEAD_BYTES + 8 + 256];
	for (uint64_t off = EXP_SLOT_BYTES; list && off < (uint64_t)st.st_size && used < cap; off += EXP_SLOT_BYTES) {
		ssize_t got = pread(fd, head, sizeof(head), (off_t)off);
		size_t k = 0;
		while (got > 0 && k < (size_t)got && !head[k])
			k++;
		if (got <= 0 || k == (size_t)got)
			continue;                   /* never written: no process */
		struct exp_procslot *s = &list[used++];
		s->off = off;
		s->lineage[0] = 0;
		size_t key = strlen(EXP_SLOT_LINEAGE_KEY), at = EXP_PROC_HEAD_BYTES;
		if (!proc_head(head, (size_t)got) || (size_t)got < at + key ||
		    memcmp(head + at, EXP_SLOT_LINEAGE_KEY, key))
			continue;
		const uint8_t *v = head + at + key, *nl = memchr(v, '\n', (size_t)got - at - key);
		if (nl && nl > v && (size_t)(nl - v) < sizeof(s->lineage) && lineage_ok(v, (size_t)(nl - v))) {
			memcpy(s->lineage, v, (size_t)(nl - v));
			s->lineage[nl - v] = 0;
		}
	}
	close(fd);
	*n = list ? used : 0;
	if (list)          /* by lineage, for exp_procslots_has */
		qsort(list, used, sizeof(*list), by_lineage);
	return list;
}

bool exp_procslots_has(const struct exp_procslot *slots, size_t n, const char *name, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {          /* the list is sorted by lineage (exp_procslots_list) */
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(slots[mid].lineage, name, len);
		if (c == 0)
			c = slots[mid].lineage[len] != 0;  /* longer than name: after it */
		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The log lines of a process file's bytes as a text stream (freed by
 * fclose); takes `data`. */
static FILE *log_of(uint8_t *data, size_t size)
{
	FILE *out = size >= EXP_PROC_HEAD_BYTES && !memcmp(data, EXP_MAGIC, 8) ? fmemopen(NULL, size + 1, "w+")
									       : NULL;
	struct exp_procfile_item *it = out ? malloc(sizeof(*it)) : NULL;
	size_t at = EXP_PROC_HEAD_BYTES;
	while (it && exp_procfile_next(data, size, &at, it) > 0)
		if (!it->is_record)
			fprintf(out, "%.*s\n", (int)it->len, it->text);
	free(it);
	free(data);
	if (out)
		rewind(out);
	return out;
}

FILE *exp_procfile_log_src(const struct exp_procfile_src *src)
{
	uint8_t *data;
	size_t size;
	char why[128];

	/* In memory (the lines are no longer than the file), freed by fclose:
	 * `tally record` reads every descendant's log at its end. */
	return exp_procfile_join(src, &data, &size, why, sizeof(why)) == 0 ? log_of(data, size) : NULL;
}

FILE *exp_procfile_log(const char *path)
{
	struct exp_procfile_src src = { NULL, 0, path };

	return exp_procfile_log_src(&src);
}
