/* SPDX-License-Identifier: MIT
 *
 * report_source.h — a source file found and read for annotation
 * (report_source.c says where it is looked for).
 */
#ifndef TALLY_REPORT_SOURCE_H
#define TALLY_REPORT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct report_source {
	char *text;                /* the file, lines NUL-terminated in place */
	char **lines;              /* lines[i]: line i + 1 */
	size_t nlines;
	char found[4096];          /* the path read */
	char hidden[4200];         /* "" or why a file that is there is not shown */
};

/* From now on, read source files with the rights of uid:gid (and its
 * groups), not ours: root reading another user's experiment shows only
 * what that user may read.  The first call wins. */
void report_source_restrict(uid_t uid, gid_t gid);

/* Find and read `file` (a path from DWARF) using `search_path` (DIR:DIR...,
 * or NULL) and `comp_dir` (or NULL); false if no readable file was found. */
bool report_source_open(const char *file, const char *comp_dir, const char *search_path,
			struct report_source *src);
/* Find and read a Java method's source, `rel` ("pkg/Class.java", from the
 * class's package and SourceFile): in the directories of `search_path`
 * (or NULL), then in the current directory, its src/main/java and its src. */
bool report_source_open_java(const char *rel, const char *search_path, struct report_source *src);
/* Text of line `line` (1-based), or NULL if the file has no such line. */
const char *report_source_line(const struct report_source *src, int line);
void report_source_free(struct report_source *src);

#endif
