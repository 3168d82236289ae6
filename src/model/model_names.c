/* SPDX-License-Identifier: MIT
 *
 * model_names.c — functions of one object that share a name (file-static
 * functions of different source files, the Sun analyzer's "Static functions") are
 * told apart in every view: each gets its source file after its name,
 * `helper (a.c)`, from DWARF; or its path when two files share a basename;
 * or its address, `helper (@0x1149)`, without DWARF.  Two builds of one
 * program (merged experiments of a program rebuilt in place: same path,
 * same names, often the same addresses) are told apart by build-id,
 * `f (build 1a2b3c4d)`, or by their order when a file has none.
 * model_funcs.c still finds them all by the bare name (the parenthesis
 * reads as an argument list).
 * Run once by model_build.c when every function is known.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_build_int.h"

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Source file of f's first instruction, in the build it was read from, or
 * NULL. */
static const char *source_of(const struct model_func *f)
{
	bool mismatch;
	char err[256];
	struct sym_object *o = f->obj ? f->obj : sym_object_get(f->path, NULL, 0, &mismatch, err, sizeof(err));
	const char *file;
	int line;

	return o && sym_object_line(o, f->addr, &file, &line) ? file : NULL;
}

/* Is `s` the source (or basename, `base`) of no other member of the group? */
static bool unique_in(const char **src, size_t n, size_t i, bool base)
{
	for (size_t j = 0; j < n; j++) {
		if (j == i || !src[j])
			continue;
		if (base ? !strcmp(base_of(src[j]), base_of(src[i])) : !strcmp(src[j], src[i]))
			return false;
	}
	return true;
}

/* "build 1a2b3c4d" for member i of group g[0..n), whose build differs from
 * another member's: its build-id's first four bytes, or (no build-id) its
 * build's rank among the group's builds, "build 2". */
static void build_label(const struct model *m, const uint32_t *g, size_t i, char *out, size_t len)
{
	const uint8_t *id;
	size_t idlen = m->funcs[g[i]].obj ? sym_object_build_id(m->funcs[g[i]].obj, &id) : 0;

	if (idlen >= 4) {
		snprintf(out, len, "build %02x%02x%02x%02x", id[0], id[1], id[2], id[3]);
		return;
	}
	size_t rank = 1;
	for (size_t j = 0; j < i; j++) {
		bool first = true;          /* the first member of its build */
		for (size_t k = 0; k < j && first; k++)
			first = m->funcs[g[k]].obj != m->funcs[g[j]].obj;
		rank += first && m->funcs[g[j]].obj != m->funcs[g[i]].obj;
	}
	snprintf(out, len, "build %zu", rank);
}

/* Rename the members g[0..n) of one group of same-named functions. */
static int rename_group(struct model *m, const uint32_t *g, size_t n)
{
	const char **src = calloc(n, sizeof(*src));
	char buf[8192];

	if (!src)
		return -1;
	for (size_t i = 0; i < n; i++)
		src[i] = source_of(&m->funcs[g[i]]);
	for (size_t i = 0; i < n; i++) {
		struct model_func *f = &m->funcs[g[i]];
		if (src[i] && unique_in(src, n, i, true))
			snprintf(buf, sizeof(buf), "%s (%s)", f->name, base_of(src[i]));
		else if (src[i] && unique_in(src, n, i, false))
			snprintf(buf, sizeof(buf), "%s (%s)", f->name, src[i]);
		else {
			bool twin = false, other_build = false;   /* same name in its build, in another */
			for (size_t j = 0; j < n; j++)
				if (j != i && m->funcs[g[j]].obj == f->obj)
					twin = true;
				else if (j != i)
					other_build = true;
			char build[32] = "";
			if (other_build)
				build_label(m, g, i, build, sizeof(build));
			if (other_build && !twin)
				snprintf(buf, sizeof(buf), "%s (%s)", f->name, build);
			else if (other_build)
				snprintf(buf, sizeof(buf), "%s (@0x%llx, %s)", f->name, (unsigned long long)f->addr,
					 build);
			else
				snprintf(buf, sizeof(buf), "%s (@0x%llx)", f->name, (unsigned long long)f->addr);
		}
		char *name = strdup(buf), *s = src[i] ? strdup(base_of(src[i])) : NULL;
		if (!name) {
			free(s);
			free(src);
			return -1;
		}
		free(f->name);
		f->name = name;
		f->src = s;
	}
	free(src);
	return 0;
}

static const struct model_func *sort_funcs;

static int cmp_name_path(const void *a, const void *b)
{
	const struct model_func *x = &sort_funcs[*(const uint32_t *)a];
	const struct model_func *y = &sort_funcs[*(const uint32_t *)b];
	int c = strcmp(x->path, y->path);

	return c ? c : strcmp(x->name, y->name);
}

int model_names_distinguish(struct model *m)
{
	uint32_t *ids = malloc((m->nfuncs + 1) * sizeof(*ids));
	size_t n = 0;
	int rc = 0;

	if (!ids)
		return -1;
	for (uint32_t i = 1; i < m->nfuncs; i++)
		if (!(m->funcs[i].flags & MODEL_FUNC_ARTIFICIAL) && m->funcs[i].path[0] && m->funcs[i].addr)
			ids[n++] = i;
	sort_funcs = m->funcs;
	qsort(ids, n, sizeof(*ids), cmp_name_path);
	for (size_t i = 0; i < n && !rc;) {
		size_t j = i + 1;
		while (j < n && !cmp_name_path(&ids[i], &ids[j]))
			j++;
		if (j - i > 1)
			rc = rename_group(m, ids + i, j - i);
		i = j;
	}
	free(ids);
	return rc;
}
