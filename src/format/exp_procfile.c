/* SPDX-License-Identifier: MIT
 *
 * exp_procfile.c — a descendant's process file (see exp_procfile.h and the
 * layout in exp_records.h).  Analyzer side only: every length is checked
 * against the bytes at hand before it is used.
 */
#include <dirent.h>
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

/* The whole of `path` (at most 256 MiB), malloc'd; -errno: -EINVAL not a
 * regular file, -EFBIG past 256 MiB. */
static int read_whole(const char *path, uint8_t **data, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 28)) {
		bool big = S_ISREG(st.st_mode) && st.st_size > (1 << 28);
		close(fd);
		return big ? -EFBIG : -EINVAL;
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

/* Is `h` a process file's head (magic and kind)? */
static bool proc_head(const uint8_t *h, size_t n)
{
	struct exp_file_header fh;

	if (n < EXP_PROC_HEAD_BYTES)
		return false;
	memcpy(&fh, h, sizeof(fh));
	return !memcmp(fh.magic, EXP_MAGIC, 8) && fh.kind == EXP_PROC_KIND;
}

/* The slot at src->slot_off of src->slots, its trailing zeros left out
 * (every item ends in '\n'), checked as a process file's head (its
 * version too: exp_header_check, offsets in processes.dat).  0, or as
 * exp_procfile_join, with err filled. */
static int read_slot(const struct exp_procfile_src *src, uint8_t **slot, size_t *n, struct exp_error *err)
{
	int fd = open(src->slots, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	*slot = fd >= 0 ? calloc(1, EXP_SLOT_BYTES) : NULL;
	ssize_t got = *slot ? pread(fd, *slot, EXP_SLOT_BYTES, (off_t)src->slot_off) : -1;
	int rc = fd < 0 ? -errno : !*slot ? -ENOMEM : got < 0 ? -errno : 0;   /* the read's own errno */

	if (fd >= 0)
		close(fd);
	if (rc)
		return exp_fail(err, src->slots, rc, strerror(-rc));
	*n = (size_t)got;
	while (*n && !(*slot)[*n - 1])
		--*n;
	if (!proc_head(*slot, *n))
		return exp_corrupt(err, src->slots, src->slot_off, "a slot whose head is not a process file's");
	struct exp_file_header h;
	memcpy(&h, *slot, sizeof(h));
	return exp_header_check(&h, src->slots, src->slot_off, EXP_PROC_KIND, err);
}

/* The process file at `path`, whole and checked as one (exp_header_check).
 * 0, or as exp_procfile_join, with err filled (its cause too: the message
 * without "PATH: "). */
static int read_file(const char *path, uint8_t **file, size_t *n, struct exp_error *err)
{
	int rc = read_whole(path, file, n);

	if (rc)
		return exp_fail(err, path, rc, rc == -EINVAL ? "not a regular file"
					       : rc == -EFBIG ? "larger than 256 MiB: not read" : strerror(-rc));
	if (*n < EXP_PROC_HEAD_BYTES)
		return exp_corrupt(err, path, 0, "file of %zu bytes is shorter than a process file's %d-byte head",
				   *n, EXP_PROC_HEAD_BYTES);
	struct exp_file_header h;
	memcpy(&h, *file, sizeof(h));
	return exp_header_check(&h, path, 0, EXP_PROC_KIND, err);
}

int exp_procfile_join(const struct exp_procfile_src *src, struct exp_procfile_joined *j, struct exp_error *err)
{
	uint8_t *slot = NULL, *file = NULL;
	size_t slot_n = 0, file_n = 0;
	int rc = 0;

	memset(j, 0, sizeof(*j));
	memset(err, 0, sizeof(*err));
	if (src->slots && (rc = read_slot(src, &slot, &slot_n, err)) != 0)
		goto out;
	if (src->file) {
		struct exp_error *ferr = slot ? &j->file_err : err;
		int frc = read_file(src->file, &file, &file_n, ferr);
		if (frc == -ENOMEM) {
			rc = frc;              /* a failure of ours, not damage */
			goto out;
		} else if (frc && slot) {
			/* The slot alone: a continuation missing (never made)
			 * or unreadable, which the caller names. */
			j->file_rc = frc;
			free(file);
			file = NULL;
		} else if (frc) {
			rc = frc;
			goto out;
		}
	}
	if (!slot) {
		j->data = file;
		j->size = file_n;
		return file ? 0 : -ENOENT;     /* neither a slot nor a file named */
	}
	size_t more = file ? file_n - EXP_PROC_HEAD_BYTES : 0;
	j->data = malloc(slot_n + more + 1);
	if (!j->data) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", src->slots);
		rc = -ENOMEM;
		goto out;
	}
	memcpy(j->data, slot, slot_n);
	if (more)
		memcpy(j->data + slot_n, file + EXP_PROC_HEAD_BYTES, more);
	j->size = slot_n + more;
	j->slot_bytes = slot_n;
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

void exp_procfile_each(const char *root, exp_descendant_fn *fn, void *arg)
{
	char slots_path[4200], path[8400];
	size_t nslots = 0;
	struct exp_procslot *slots = exp_procslots_list(root, &nslots);
	struct exp_descendant d;

	snprintf(slots_path, sizeof(slots_path), "%s/%s", root, EXP_SLOTS_NAME);
	for (size_t i = 0; i < nslots; i++) {
		/* Sorted by lineage: a second slot of one lineage is damage the
		 * analyzer names and does not read; nor is it walked here. */
		if (i && slots[i].lineage[0] && !strcmp(slots[i].lineage, slots[i - 1].lineage))
			continue;
		snprintf(path, sizeof(path), "%s/%s%s", root, slots[i].lineage, EXP_PROC_SUFFIX);
		d = (struct exp_descendant){ { slots_path, slots[i].off, slots[i].lineage[0] ? path : NULL }, NULL };
		fn(arg, &d);
	}
	DIR *dir = opendir(root);
	struct dirent *de;
	while (dir && (de = readdir(dir))) {
		size_t len = strlen(de->d_name), stem = exp_procfile_stem(de->d_name);
		bool is_exp = !stem && len >= 5 && !strcmp(de->d_name + len - 4, ".exp");
		if (de->d_name[0] != '_' || (!stem && (!is_exp || exp_procfile_beside(root, de->d_name))) ||
		    exp_procslots_has(slots, nslots, de->d_name, stem ? stem : len - 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, de->d_name);
		d = stem ? (struct exp_descendant){ { NULL, 0, path }, NULL }
			 : (struct exp_descendant){ { NULL, 0, NULL }, path };
		fn(arg, &d);
	}
	if (dir)
		closedir(dir);
	free(slots);
}

FILE *exp_procfile_log_data(const uint8_t *data, size_t size)
{
	FILE *out = size >= EXP_PROC_HEAD_BYTES && !memcmp(data, EXP_MAGIC, 8) ? fmemopen(NULL, size + 1, "w+")
									       : NULL;
	struct exp_procfile_item *it = out ? malloc(sizeof(*it)) : NULL;
	size_t at = EXP_PROC_HEAD_BYTES;
	while (it && exp_procfile_next(data, size, &at, it) > 0)
		if (!it->is_record)
			fprintf(out, "%.*s\n", (int)it->len, it->text);
	free(it);
	if (out)
		rewind(out);
	return out;
}

FILE *exp_procfile_log_src(const struct exp_procfile_src *src)
{
	struct exp_procfile_joined j;
	struct exp_error err;

	/* In memory (the lines are no longer than the file), freed by fclose:
	 * `tally record` reads every descendant's log at its end. */
	if (exp_procfile_join(src, &j, &err) != 0)
		return NULL;
	FILE *f = exp_procfile_log_data(j.data, j.size);
	free(j.data);
	return f;
}

FILE *exp_procfile_log(const char *path)
{
	struct exp_procfile_src src = { NULL, 0, path };

	return exp_procfile_log_src(&src);
}
