/* SPDX-License-Identifier: MIT
 *
 * exp_procfile.c — a descendant's process file (see exp_procfile.h and the
 * layout in exp_records.h).  Analyzer side only: every length is checked
 * against the bytes at hand before it is used.
 */
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

FILE *exp_procfile_log(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < EXP_PROC_HEAD_BYTES ||
	    st.st_size > (1 << 28)) {
		close(fd);
		return NULL;
	}
	size_t size = (size_t)st.st_size;
	uint8_t *data = malloc(size);
	ssize_t got = data ? pread(fd, data, size, 0) : -1;
	close(fd);
	/* In memory (the lines are no longer than the file), freed by fclose:
	 * `tally record` reads every descendant's log at its end. */
	FILE *out = got >= EXP_PROC_HEAD_BYTES && !memcmp(data, EXP_MAGIC, 8) ? fmemopen(NULL, size + 1, "w+")
									       : NULL;
	struct exp_procfile_item *it = out ? malloc(sizeof(*it)) : NULL;
	size_t at = EXP_PROC_HEAD_BYTES;
	while (it && exp_procfile_next(data, (size_t)got, &at, it) > 0)
		if (!it->is_record)
			fprintf(out, "%.*s\n", (int)it->len, it->text);
	free(it);
	free(data);
	if (out)
		rewind(out);
	return out;
}
