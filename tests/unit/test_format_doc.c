/* SPDX-License-Identifier: MIT
 *
 * test_format_doc.c — docs/experiment-format.md against exp_records.h: the
 * facts that drift when a layout changes.  The format version (title and
 * header table); the header table's offsets and sizes (offsetof, sizeof);
 * for every record type the loader knows (exp_rec_info), its row in the
 * table of records (type, name, file, length) and its section ("#### NAME
 * (TYPE), LENGTH bytes"), whose byte table must run without gaps from 0 and
 * add up to the record's fixed length (sizeof).  Run from the project root.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_data.h"
#include "format/exp_launch.h"
#include "testhelp.h"

#define DOC "docs/experiment-format.md"
#define MAX_LINES 4096

static char *lines[MAX_LINES];
static size_t nlines;

static void read_doc(void)
{
	FILE *f = fopen(DOC, "r");
	char buf[4096];

	if (!f)
		return;
	while (nlines < MAX_LINES && fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = 0;
		lines[nlines++] = strdup(buf);
	}
	fclose(f);
}

/* The cells of a table row "| a | b | c |" (trimmed, at most max). */
static size_t cells(const char *line, char out[][256], size_t max)
{
	size_t n = 0;

	if (line[0] != '|')
		return 0;
	for (const char *p = line + 1; *p && n < max;) {
		const char *e = strchr(p, '|');
		if (!e)
			break;
		while (p < e && *p == ' ')
			p++;
		size_t len = (size_t)(e - p);
		while (len && p[len - 1] == ' ')
			len--;
		snprintf(out[n++], 256, "%.*s", (int)len, p);
		p = e + 1;
	}
	return n;
}

/* "THREAD_START" from the loader's "thread-start". */
static void upper(const char *name, char *out, size_t len)
{
	size_t i = 0;

	for (; name[i] && i + 1 < len; i++)
		out[i] = name[i] == '-' ? '_' : (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
	out[i] = 0;
}

static void version_is_the_code_s(void)
{
	char want[64];
	char c[8][256];
	bool row = false;

	CHECKF(nlines > 0, "%s not found (run from the project root)", DOC);
	snprintf(want, sizeof(want), "# The tally experiment format, version %d", EXP_FORMAT_VERSION);
	CHECKF(nlines && !strcmp(lines[0], want), "title '%s', expected '%s'", nlines ? lines[0] : "", want);
	for (size_t i = 0; i < nlines; i++)
		if (cells(lines[i], c, 8) >= 4 && !strcmp(c[2], "version")) {
			CHECKF(atoi(c[3]) == EXP_FORMAT_VERSION, "header table: version %s", c[3]);
			row = true;
		}
	CHECK(row);
}

static void header_table_is_the_struct(void)
{
	static const struct {
		const char *name;
		size_t off, size;
	} fields[] = {
		{ "magic", offsetof(struct exp_file_header, magic), 8 },
		{ "version", offsetof(struct exp_file_header, version), 4 },
		{ "kind", offsetof(struct exp_file_header, kind), 4 },
		{ "block_bytes", offsetof(struct exp_file_header, block_bytes), 4 },
		{ "header_bytes", offsetof(struct exp_file_header, header_bytes), 4 },
		{ "pid", offsetof(struct exp_file_header, pid), 4 },
		{ "mono_ns", offsetof(struct exp_file_header, mono_ns), 8 },
		{ "real_ns", offsetof(struct exp_file_header, real_ns), 8 },
	};
	char c[8][256];
	size_t found = 0, end = 0;

	CHECK(sizeof(struct exp_file_header) == EXP_HEADER_BYTES);
	for (size_t i = 0; i < nlines; i++) {
		if (strcmp(lines[i], "### File header (64 bytes)"))
			continue;
		for (size_t k = i + 1; k < nlines && strncmp(lines[k], "#", 1); k++) {
			if (cells(lines[k], c, 8) < 3 || c[0][0] < '0' || c[0][0] > '9')
				continue;
			size_t off = strtoul(c[0], NULL, 10), size = strtoul(c[1], NULL, 10);
			CHECKF(off == end, "header: %s at %zu, the previous field ends at %zu", c[2], off, end);
			end = off + size;
			for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
				if (!strcmp(c[2], fields[f].name)) {
					CHECKF(off == fields[f].off && size == fields[f].size,
					       "header: %s at %zu size %zu, the struct says %zu size %zu", c[2],
					       off, size, fields[f].off, fields[f].size);
					found++;
				}
		}
	}
	CHECKF(found == sizeof(fields) / sizeof(fields[0]), "%zu header fields documented", found);
	CHECKF(end == EXP_HEADER_BYTES, "the header table ends at %zu", end);
}

/* Check record `name` (type, fixed length `len`, variable if `more`) in the
 * table of records and in its section. */
static void check_record(const char *name, uint32_t type, uint32_t len, bool more, const char *file)
{
	char c[8][256], head[128];
	bool row = false, section = false;

	for (size_t i = 0; i < nlines; i++) {
		if (cells(lines[i], c, 8) == 4 && !strcmp(c[1], name)) {
			row = true;
			CHECKF(strtoul(c[0], NULL, 10) == type, "%s: type %s in the table, %u in the code", name,
			       c[0], type);
			CHECKF(strtoul(c[3], NULL, 10) == len, "%s: length '%s' in the table, %u in the code",
			       name, c[3], len);
			CHECKF(more == (strchr(c[3], '+') != NULL), "%s: length '%s' in the table, %s in the code",
			       name, c[3], more ? "variable" : "fixed");
			CHECKF(!strcmp(c[2], file), "%s: file '%s' in the table, %s in the code", name, c[2], file);
		}
		int n = snprintf(head, sizeof(head), "#### %s (%u), ", name, type);
		if (strncmp(lines[i], head, (size_t)n))
			continue;
		section = true;
		CHECKF(strtoul(lines[i] + n, NULL, 10) == len, "%s: '%s', %u bytes in the code", name,
		       lines[i], len);
		/* Its byte table: from 0, no gaps, the fixed fields adding up to len. */
		size_t end = 0, rows = 0;
		bool fixed = true;
		for (size_t k = i + 1; k < nlines && strncmp(lines[k], "#", 1); k++) {
			if (cells(lines[k], c, 8) < 3 || c[0][0] < '0' || c[0][0] > '9')
				continue;
			char *e;
			size_t off = strtoul(c[0], NULL, 10), size = strtoul(c[1], &e, 10);
			if (!fixed)
				break;
			CHECKF(off == end, "%s: %s at %zu, the previous field ends at %zu", name, c[2], off, end);
			rows++;
			if (*e || e == c[1]) {
				fixed = false;          /* "8 n", "used": the variable part */
				continue;
			}
			end = off + size;
			if (!more && end == len)
				break;
		}
		if (rows)
			CHECKF(end == len, "%s: its byte table's fixed fields end at %zu, %u in the code", name,
			       end, len);
	}
	CHECKF(row, "%s (type %u) is not in the table of records", name, type);
	CHECKF(section, "%s (type %u) has no section", name, type);
}

static void records_are_the_structs(void)
{
	size_t checked = 0;

	for (uint32_t type = 1; type < 256; type++) {
		const char *lname;
		uint32_t kind, len;
		bool at_least;
		char name[64], file[64];
		if (exp_rec_info(type, &lname, &kind, &len, &at_least))
			continue;
		upper(lname, name, sizeof(name));
		const char *fname = exp_file_name((enum exp_file_kind)kind);
		snprintf(file, sizeof(file), "%.*s", fname ? (int)strcspn(fname, ".") : 0, fname ? fname : "");
		check_record(name, type, len, at_least, file);
		checked++;
	}
	check_record("MIRROR", EXP_REC_MIRROR, sizeof(struct exp_mirror), false, "any");
	CHECKF(checked >= 15, "only %zu record types known to the loader", checked);
}

int main(void)
{
	read_doc();
	RUN(version_is_the_code_s);
	RUN(header_table_is_the_struct);
	RUN(records_are_the_structs);
	TEST_EXIT();
}
