/* SPDX-License-Identifier: MIT
 *
 * report_commentary.c — compiler commentary (see report_commentary.h): the Sun
 * analyzer shows "the compiler commentary for any source line ... immediately
 * preceding the source line".  gcc leaves it in two forms:
 *  - -fsave-optimization-record: FILE.opt-record.json.gz in the directory it
 *    ran in; a JSON array [metadata, passes, records], each record
 *    {kind, location {file, line}, message [...], children [...]};
 *  - -fopt-info[-all]=PATH: lines `file:line:col: optimized|missed: text`.
 * gcc names the record after its dump base: SRC.opt-record.json.gz with -c,
 * OUT-SRC.opt-record.json.gz when it also links OUT; every such file in the
 * directory is read.
 * Kept: what was done ("optimized") and what could not be ("missed"); the
 * far more numerous notes are not.  Records match the annotated file by
 * basename (gcc writes the file as it was named on its command line).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <zlib.h>

#include "report/report_commentary.h"
#include "report/report_json.h"

#define MAX_FILE_BYTES (256u << 20)

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The whole of `path` (gzip or plain, zlib reads both), or NULL. */
static char *slurp(const char *path, size_t *len)
{
	gzFile g = gzopen(path, "rb");
	size_t cap = 65536, n = 0;
	char *buf = g ? malloc(cap) : NULL;

	while (buf) {
		if (n + 1 == cap) {
			char *q = cap < MAX_FILE_BYTES ? realloc(buf, cap *= 2) : NULL;
			if (!q) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = q;
		}
		int got = gzread(g, buf + n, (unsigned)(cap - 1 - n));
		if (got < 0) {
			free(buf);
			buf = NULL;
		} else if (got == 0) {
			buf[n] = 0;
			break;
		}
		n += got > 0 ? (size_t)got : 0;
	}
	if (g)
		gzclose(g);
	*len = n;
	return buf;
}

static void add_note(struct report_commentary *c, int line, const char *text)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->notes[i].line == line && !strcmp(c->notes[i].text, text))
			return;
	struct report_note *q = realloc(c->notes, (c->n + 1) * sizeof(*q));
	char *t = strdup(text);
	if (!q || !t) {
		free(t);
		if (q)
			c->notes = q;
		c->oom = true;
		return;
	}
	c->notes = q;
	c->notes[c->n].line = line;
	c->notes[c->n++].text = t;
}

/* The text of a record's message: its strings, and the names in its
 * objects (symtab_node "add/0" is "add"). */
static void message_text(const struct rj *msg, char *out, size_t len)
{
	size_t o = 0;

	out[0] = 0;
	for (size_t i = 0; msg && msg->type == RJ_ARR && i < msg->n && o + 1 < len; i++) {
		const struct rj *it = &msg->items[i];
		const char *s = it->type == RJ_STR ? it->str : NULL;
		const struct rj *name = NULL;
		if (!s && ((name = rj_get(it, "symtab_node")) || (name = rj_get(it, "expr")) ||
			   (name = rj_get(it, "stmt"))) && name->type == RJ_STR)
			s = name->str;
		if (!s)
			continue;
		size_t l = strlen(s);
		if (name == rj_get(it, "symtab_node") && name && strrchr(s, '/'))
			l = (size_t)(strrchr(s, '/') - s);
		if (l > len - 1 - o)
			l = len - 1 - o;
		memcpy(out + o, s, l);
		o += l;
		out[o] = 0;
	}
	size_t lead = strspn(out, " \n");
	memmove(out, out + lead, o - lead + 1);
	o -= lead;
	char *nl = strchr(out, '\n');        /* one line: the first */
	if (nl) {
		*nl = 0;
		o = (size_t)(nl - out);
	}
	while (o && (out[o - 1] == ' ' || out[o - 1] == '.' || out[o - 1] == ':'))
		out[--o] = 0;
}

static void walk_records(const struct rj *recs, const char *base, struct report_commentary *c, int depth)
{
	char text[1024], line_text[1100];

	for (size_t i = 0; recs && recs->type == RJ_ARR && i < recs->n && depth < 50; i++) {
		const struct rj *r = &recs->items[i];
		const struct rj *kind = rj_get(r, "kind"), *loc = rj_get(r, "location");
		const struct rj *file = rj_get(loc, "file"), *line = rj_get(loc, "line");
		walk_records(rj_get(r, "children"), base, c, depth + 1);
		if (!kind || kind->type != RJ_STR || !file || file->type != RJ_STR || !line ||
		    line->type != RJ_NUM || strcmp(base_of(file->str), base))
			continue;
		const char *what = !strcmp(kind->str, "success") ? "optimized" :
				   !strcmp(kind->str, "failure") ? "missed" : NULL;
		if (!what)
			continue;
		message_text(rj_get(r, "message"), text, sizeof(text));
		if (!text[0])
			continue;
		snprintf(line_text, sizeof(line_text), "%s: %s", what, text);
		add_note(c, (int)line->num, line_text);
	}
}

/* -fopt-info output: `file:line:col: optimized|missed: text`. */
static void read_opt_info(char *buf, const char *base, struct report_commentary *c)
{
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
		char *c1 = strchr(l, ':');
		if (!c1)
			continue;
		*c1 = 0;
		char *end;
		long line = strtol(c1 + 1, &end, 10);
		if (end == c1 + 1 || *end != ':' || strcmp(base_of(l), base))
			continue;
		char *rest = strchr(end + 1, ':');          /* after the column */
		rest = rest ? rest + 1 : end + 1;
		while (*rest == ' ')
			rest++;
		if (strncmp(rest, "optimized:", 10) && strncmp(rest, "missed:", 7))
			continue;
		char text[1100];
		char *colon = strchr(rest, ':');
		char *msg = colon + 1;
		while (*msg == ' ')
			msg++;
		snprintf(text, sizeof(text), "%.*s: %s", (int)(colon - rest), rest, msg);
		size_t n = strlen(text);
		while (n && (text[n - 1] == '.' || text[n - 1] == ' '))
			text[--n] = 0;
		add_note(c, (int)line, text);
	}
}

/* Read one file of either form; false if it cannot be read or parsed. */
static bool read_one(const char *path, const char *base, struct report_commentary *c)
{
	size_t len;
	char *buf = slurp(path, &len);
	char err[128];

	if (!buf)
		return false;
	size_t lead = strspn(buf, " \t\r\n");
	if (buf[lead] == '[') {
		struct rj *v = rj_parse(buf, len, err, sizeof(err));
		if (v && v->type == RJ_ARR && v->n >= 3)
			walk_records(&v->items[2], base, c, 0);
		bool ok = v != NULL;
		rj_free(v);
		free(buf);
		return ok;
	}
	read_opt_info(buf, base, c);
	free(buf);
	return true;
}

/* Read every optimization record of source `base` in `dir`; true if any. */
static bool read_records_in(const char *dir, const char *base, struct report_commentary *c)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	char want[600], path[8192];
	bool any = false;

	if (!dp)
		return false;
	snprintf(want, sizeof(want), "%s.opt-record.json", base);
	size_t wl = strlen(want);
	while ((de = readdir(dp))) {
		const char *name = de->d_name;
		size_t nl = strlen(name), skip = nl >= 3 && !strcmp(name + nl - 3, ".gz") ? 3 : 0;
		if (nl - skip < wl || strncmp(name + nl - skip - wl, want, wl) ||
		    (nl - skip > wl && name[nl - skip - wl - 1] != '-'))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		any |= read_one(path, base, c);
	}
	closedir(dp);
	return any;
}

static int cmp_note(const void *a, const void *b)
{
	const struct report_note *x = a, *y = b;

	return x->line != y->line ? (x->line < y->line ? -1 : 1) : strcmp(x->text, y->text);
}

void report_commentary_load(const char *file, const char *comp_dir, const char *found,
			    const char *search_path, const char *extra, struct report_commentary *c)
{
	const char *base = base_of(file);
	char path[8192], dir[4096];

	memset(c, 0, sizeof(*c));
	/* The optimization record gcc leaves where it ran: the first found. */
	const char *dirs[3] = { comp_dir, NULL, NULL };
	if (found) {
		snprintf(dir, sizeof(dir), "%s", found);
		char *s = strrchr(dir, '/');
		if (s)
			*s = 0;
		dirs[1] = s ? dir : ".";
	}
	bool done = false;
	for (int i = 0; i < 2 && !done; i++)
		done = dirs[i] && read_records_in(dirs[i], base, c);
	for (const char *d = search_path; d && *d && !done;) {
		const char *end = strchr(d, ':');
		int dl = (int)(end ? (size_t)(end - d) : strlen(d));
		snprintf(path, sizeof(path), "%.*s", dl, d);
		done = dl && read_records_in(path, base, c);
		d = end ? end + 1 : NULL;
	}
	for (const char *e = extra; e && *e;) {
		const char *end = strchr(e, ',');
		snprintf(path, sizeof(path), "%.*s", (int)(end ? (size_t)(end - e) : strlen(e)), e);
		if (!read_one(path, base, c))
			fprintf(stderr, "tally: warning: %s: cannot read compiler commentary\n", path);
		e = end ? end + 1 : NULL;
	}
	if (c->n)
		qsort(c->notes, c->n, sizeof(*c->notes), cmp_note);
}

void report_commentary_free(struct report_commentary *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->notes[i].text);
	free(c->notes);
	memset(c, 0, sizeof(*c));
}
