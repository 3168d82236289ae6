/* SPDX-License-Identifier: MIT
 *
 * report_source.c — finding and reading a source file for annotation, in
 * the seed's manner: the places below are tried in turn, and the first file
 * of the right name that can be read wins:
 *   1. each directory of the search path (--source-path DIR:DIR...): the
 *      path as DWARF gives it below that directory (when relative), then the
 *      file's basename there;
 *   2. the path as DWARF gives it: absolute, or relative to the compilation
 *      directory (DW_AT_comp_dir), or to the current directory.
 * A Java method's source ("pkg/Class.java") is looked for in the search
 * path, then below the current directory, its src/main/java and its src.
 * Files are read whole (a source file is small) and split into lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_source.h"

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Read `path` into src; true if it could. */
static bool read_file(const char *path, struct report_source *src)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f)
		return false;
	for (;;) {
		if (cap - len < 4096) {
			char *q = realloc(buf, cap = cap * 2 + 8192);
			if (!q) {
				free(buf);
				fclose(f);
				return false;
			}
			buf = q;
		}
		size_t got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[len] = 0;
	size_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	src->lines = malloc((n + 1) * sizeof(*src->lines));
	if (!src->lines) {
		free(buf);
		return false;
	}
	src->text = buf;
	src->nlines = 0;
	for (char *p = buf; *p;) {
		char *nl = strchr(p, '\n');
		src->lines[src->nlines++] = p;
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	snprintf(src->found, sizeof(src->found), "%s", path);
	return true;
}

bool report_source_open(const char *file, const char *comp_dir, const char *search_path,
			struct report_source *src)
{
	char path[8192];

	memset(src, 0, sizeof(*src));
	for (const char *d = search_path; d && *d;) {
		const char *end = strchr(d, ':');
		int dl = (int)(end ? (size_t)(end - d) : strlen(d));
		if (dl && file[0] != '/') {
			snprintf(path, sizeof(path), "%.*s/%s", dl, d, file);
			if (read_file(path, src))
				return true;
		}
		if (dl) {
			snprintf(path, sizeof(path), "%.*s/%s", dl, d, base_of(file));
			if (read_file(path, src))
				return true;
		}
		d = end ? end + 1 : NULL;
	}
	if (file[0] != '/' && comp_dir) {
		snprintf(path, sizeof(path), "%s/%s", comp_dir, file);
		if (read_file(path, src))
			return true;
	}
	return read_file(file, src);
}

bool report_source_open_java(const char *rel, const char *search_path, struct report_source *src)
{
	static const char roots[] = ".:src/main/java:src";
	char path[8192];

	snprintf(path, sizeof(path), "%s%s%s", search_path ? search_path : "", search_path ? ":" : "",
		 roots);
	return report_source_open(rel, NULL, path, src);
}

const char *report_source_line(const struct report_source *src, int line)
{
	return src && line >= 1 && (size_t)line <= src->nlines ? src->lines[line - 1] : NULL;
}

void report_source_free(struct report_source *src)
{
	free(src->text);
	free(src->lines);
	memset(src, 0, sizeof(*src));
}
