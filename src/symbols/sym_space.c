/* SPDX-License-Identifier: MIT
 *
 * sym_space.c — one process's address space over time: the MAP / UNMAP
 * records of an experiment, and sym_space_find(pc, time), which picks the
 * mapping that held pc at that time and opens its object on first use.
 * Called by the model while it reads an experiment; single-threaded.
 *
 * Workload: a process has 5-100 mappings, a dlopen loop thousands, all
 * recorded first and then queried once per distinct (pc, time) of a stack.
 * The index is built lazily after the last change: the mappings' start/end
 * addresses cut the address space into elementary intervals, and each
 * interval lists the mappings that ever covered it, ordered by map time, with
 * a running maximum of their unmap times.  A query is one binary search over
 * the intervals and one over that list; the running maximum stops the
 * backward scan for a live mapping as soon as none can be alive.
 *
 * Objects whose file is gone or changed are taken from the experiment's
 * archive (DIR/<build-id in hex>, and DIR/vdso.so for the vDSO); the
 * outcome per (path, build-id) is remembered, so each problem is warned about
 * once, through the handler of sym_set_warning_handler.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_launch.h"
#include "format/exp_records.h"
#include "symbols/sym_int.h"

/* One mapping in the list of an elementary interval. */
struct sym_cover {
	uint64_t map_ns;          /* of the mapping */
	uint64_t unmap_max;       /* max unmap_ns of this and the earlier ones */
	size_t map;               /* index in maps[] */
	size_t argmax;            /* index in maps[] of that max */
};

/* How a (path, build-id) was resolved to an object. */
struct sym_resolved {
	char *path;
	uint8_t build_id[20];
	uint8_t build_id_len;
	struct sym_object *obj;   /* NULL: unreadable (warned) */
};

struct sym_space {
	struct sym_mapping **maps;      /* in the order they were recorded */
	size_t nmaps, capmaps;
	char *archive;                  /* NULL or the archive directory */
	struct sym_resolved *res;
	size_t nres, capres;
	bool dirty;                     /* the index below is stale */
	uint64_t *bounds;               /* sorted distinct start/end addresses */
	size_t nbounds;
	size_t *first;                  /* interval j: cover[first[j]..first[j+1]) */
	struct sym_cover *cover;
};

static void sym_warn_default(const char *msg)
{
	fprintf(stderr, "tally: warning: %s\n", msg);
}

static void (*sym_warn_fn)(const char *msg) = sym_warn_default;

void sym_set_warning_handler(void (*fn)(const char *msg))
{
	sym_warn_fn = fn ? fn : sym_warn_default;
}

struct sym_space *sym_space_new(void)
{
	return calloc(1, sizeof(struct sym_space));
}

static void sym_space_drop_index(struct sym_space *s)
{
	free(s->bounds);
	free(s->first);
	free(s->cover);
	s->bounds = NULL;
	s->first = NULL;
	s->cover = NULL;
	s->nbounds = 0;
}

void sym_space_free(struct sym_space *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nmaps; i++) {
		free((char *)s->maps[i]->path);
		free(s->maps[i]);
	}
	for (size_t i = 0; i < s->nres; i++)
		free(s->res[i].path);
	sym_space_drop_index(s);
	free(s->maps);
	free(s->res);
	free(s->archive);
	free(s);
}

/* Use DIR/<build-id> for objects that are missing or changed.  The previous
 * setting is replaced; NULL turns the archive off.  Call before the first
 * sym_space_find (objects already resolved are kept). */
void sym_space_set_archive(struct sym_space *s, const char *dir)
{
	free(s->archive);
	s->archive = dir ? strdup(dir) : NULL;
}

/* Record that [start, end) was mapped no later than time_ns.  An empty
 * range, or one that runs out of memory, is ignored. */
void sym_space_map(struct sym_space *s, uint64_t time_ns, uint64_t start,
		   uint64_t end, uint64_t bias, const char *path,
		   const uint8_t *build_id, size_t build_id_len, uint32_t flags)
{
	struct sym_mapping *m;

	if (start >= end)
		return;
	if (s->nmaps == s->capmaps) {
		size_t ncap = s->capmaps ? s->capmaps * 2 : 32;
		struct sym_mapping **nv = realloc(s->maps, ncap * sizeof(*nv));

		if (!nv)
			return;
		s->maps = nv;
		s->capmaps = ncap;
	}
	m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(path ? path : ""))) {
		free(m);
		return;
	}
	m->start = start;
	m->end = end;
	m->bias = bias;
	m->map_ns = time_ns;
	m->unmap_ns = UINT64_MAX;
	if (build_id_len > sizeof(m->build_id))
		build_id_len = sizeof(m->build_id);
	if (build_id_len)
		memcpy(m->build_id, build_id, build_id_len);
	m->build_id_len = (uint8_t)build_id_len;
	m->flags = flags;
	s->maps[s->nmaps++] = m;
	s->dirty = true;
}

void sym_space_map_object(struct sym_space *s, uint64_t time_ns, uint64_t start, uint64_t end,
			  struct sym_object *obj)
{
	size_t n = s->nmaps;

	sym_space_map(s, time_ns, start, end, 0, obj ? sym_object_path(obj) : "", NULL, 0, 0);
	if (s->nmaps > n) {
		s->maps[n]->obj = obj;
		s->maps[n]->obj_tried = true;
	}
}

void sym_space_map_code(struct sym_space *s, uint64_t time_ns, uint64_t start, uint64_t end,
			const char *name, uint64_t tag)
{
	size_t n = s->nmaps;

	sym_space_map(s, time_ns, start, end, 0, name, NULL, 0, SYM_MAP_CODE);
	if (s->nmaps == n)
		return;           /* not recorded: empty, or out of memory */
	s->maps[n]->tag = tag;
	s->maps[n]->obj_tried = true;
}

/* Record that the mapping starting at `start` is gone at time_ns: the
 * latest-recorded one still mapped. */
void sym_space_unmap(struct sym_space *s, uint64_t time_ns, uint64_t start)
{
	for (size_t i = s->nmaps; i-- > 0;) {
		struct sym_mapping *m = s->maps[i];

		if (m->start == start && m->unmap_ns == UINT64_MAX) {
			m->unmap_ns = time_ns;
			s->dirty = true;
			return;
		}
	}
}

static int sym_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Mappings ordered by map time, then recording order. */
static int sym_by_time_cmp(const void *a, const void *b)
{
	const struct sym_cover *x = a, *y = b;

	if (x->map_ns != y->map_ns)
		return x->map_ns < y->map_ns ? -1 : 1;
	return x->map < y->map ? -1 : x->map > y->map;
}

/* Index of `addr` in s->bounds (it is there). */
static size_t sym_bound_index(const struct sym_space *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nbounds;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->bounds[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Rebuild the interval index.  Returns -1 when out of memory. */
static int sym_space_index(struct sym_space *s)
{
	struct sym_cover *order = NULL;
	size_t i, j, n = s->nmaps, total = 0, *fill = NULL;

	sym_space_drop_index(s);
	s->bounds = malloc((2 * n + 1) * sizeof(*s->bounds));
	order = malloc((n + 1) * sizeof(*order));
	if (!s->bounds || !order)
		goto oom;
	for (i = 0; i < n; i++) {
		s->bounds[2 * i] = s->maps[i]->start;
		s->bounds[2 * i + 1] = s->maps[i]->end;
		order[i].map_ns = s->maps[i]->map_ns;
		order[i].map = i;
	}
	qsort(s->bounds, 2 * n, sizeof(*s->bounds), sym_u64_cmp);
	qsort(order, n, sizeof(*order), sym_by_time_cmp);
	for (i = 0, j = 0; i < 2 * n; i++) {
		if (j == 0 || s->bounds[i] != s->bounds[j - 1])
			s->bounds[j++] = s->bounds[i];
	}
	s->nbounds = j;
	s->first = calloc(j + 1, sizeof(*s->first));
	fill = calloc(j + 1, sizeof(*fill));
	if (!s->first || !fill)
		goto oom;
	for (i = 0; i < n; i++) {       /* count the mappings per interval */
		size_t a = sym_bound_index(s, s->maps[i]->start);
		size_t b = sym_bound_index(s, s->maps[i]->end);

		total += b - a;
		for (; a < b; a++)
			s->first[a + 1]++;
	}
	for (i = 0; i < j; i++)
		s->first[i + 1] += s->first[i];
	s->cover = malloc((total + 1) * sizeof(*s->cover));
	if (!s->cover)
		goto oom;
	for (i = 0; i < n; i++) {       /* fill them in time order */
		const struct sym_mapping *m = s->maps[order[i].map];
		size_t a = sym_bound_index(s, m->start);
		size_t b = sym_bound_index(s, m->end);

		for (; a < b; a++) {
			struct sym_cover *c = &s->cover[s->first[a] + fill[a]];

			c->map_ns = m->map_ns;
			c->map = order[i].map;
			if (fill[a]++ && c[-1].unmap_max >= m->unmap_ns) {
				c->unmap_max = c[-1].unmap_max;
				c->argmax = c[-1].argmax;
			} else {
				c->unmap_max = m->unmap_ns;
				c->argmax = c->map;
			}
		}
	}
	free(order);
	free(fill);
	s->dirty = false;
	return 0;
oom:
	free(order);
	free(fill);
	sym_space_drop_index(s);
	return -1;
}

/* The mapping of interval list c[0..n) for `time_ns` (see sym.h). */
static size_t sym_cover_pick(const struct sym_space *s,
			     const struct sym_cover *c, size_t n,
			     uint64_t time_ns)
{
	size_t lo = 0, hi = n, k;

	if (time_ns == UINT64_MAX)
		return c[n - 1].map;
	while (lo < hi) {                 /* lo = first mapped after time_ns */
		size_t mid = lo + (hi - lo) / 2;

		if (c[mid].map_ns <= time_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k-- > 0 && c[k].unmap_max > time_ns;) {
		if (s->maps[c[k].map]->unmap_ns > time_ns)
			return c[k].map;          /* alive, latest mapped */
	}
	if (lo == 0)
		return c[0].map;                  /* all mapped later */
	if (lo == n ||
	    time_ns - c[lo - 1].unmap_max < c[lo].map_ns - time_ns)
		return c[lo - 1].argmax;          /* unmapped most recently */
	return c[lo].map;                         /* mapped next */
}

static void sym_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sym_warn(const char *fmt, ...)
{
	char msg[PATH_MAX + 512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sym_warn_fn(msg);
}

/* The archived copy DIR/<hex> (or DIR/vdso.so when `vdso`) of m's object if
 * it is readable and matches m's build-id; NULL otherwise. */
static struct sym_object *sym_space_archived(const struct sym_space *s,
					     const struct sym_mapping *m,
					     bool vdso)
{
	char file[PATH_MAX], err[256];
	bool mismatch = true;
	struct sym_object *o;
	int n;

	if (vdso) {
		n = snprintf(file, sizeof(file), "%s/vdso.so", s->archive);
	} else {
		char hex[2 * EXP_BUILD_ID_MAX + 1];
		if (m->build_id_len > EXP_BUILD_ID_MAX)
			return NULL;
		exp_build_id_hex(m->build_id, m->build_id_len, hex);
		n = snprintf(file, sizeof(file), "%s/%s", s->archive, hex);
	}
	if (n < 0 || (size_t)n >= sizeof(file))
		return NULL;
	o = sym_object_get_as(file, m->path, m->build_id, m->build_id_len,
			      &mismatch, err, sizeof(err));
	return o && !mismatch ? o : NULL;
}

/* Find m's object: its path, else the archive; warn when it is unreadable
 * or (with no matching archived copy) changed. */
static struct sym_object *sym_space_resolve(const struct sym_space *s,
					    const struct sym_mapping *m)
{
	bool pseudo = m->path[0] == '[', vdso, mismatch = false;
	struct sym_object *o = NULL, *a = NULL;
	char err[PATH_MAX + 128];

	snprintf(err, sizeof(err), "%s: not a file", m->path);
	if (!pseudo)
		o = sym_object_get(m->path, m->build_id, m->build_id_len,
				   &mismatch, err, sizeof(err));
	if (o && !mismatch)
		return o;
	vdso = (m->flags & EXP_MAP_VDSO) || strcmp(m->path, "[vdso]") == 0;
	if (s->archive && m->build_id_len)
		a = sym_space_archived(s, m, false);
	if (!a && s->archive && vdso)
		a = sym_space_archived(s, m, true);
	if (a)
		return a;
	if (o) {
		sym_warn("%s: build-id differs from the recorded one, its "
			 "symbols may be wrong%s", m->path,
			 s->archive ? " (no archived copy either)" : "");
		return o;
	}
	sym_warn("%s%s", err, s->archive ? " (and no archived copy)" : "");
	return NULL;
}

/* Resolve m's object once per (path, build-id) for the whole space. */
static void sym_space_open(struct sym_space *s, struct sym_mapping *m)
{
	struct sym_resolved *r;

	m->obj_tried = true;
	for (size_t i = 0; i < s->nres; i++) {
		r = &s->res[i];
		if (r->build_id_len == m->build_id_len &&
		    memcmp(r->build_id, m->build_id, m->build_id_len) == 0 &&
		    strcmp(r->path, m->path) == 0) {
			m->obj = r->obj;
			return;
		}
	}
	m->obj = sym_space_resolve(s, m);
	if (s->nres == s->capres) {
		size_t ncap = s->capres ? s->capres * 2 : 16;
		struct sym_resolved *nv = realloc(s->res, ncap * sizeof(*nv));

		if (!nv)
			return;
		s->res = nv;
		s->capres = ncap;
	}
	r = &s->res[s->nres];
	r->path = strdup(m->path);
	if (!r->path)
		return;
	memcpy(r->build_id, m->build_id, sizeof(r->build_id));
	r->build_id_len = m->build_id_len;
	r->obj = m->obj;
	s->nres++;
}

/* The mapping holding `pc` at `time_ns` (see sym.h).  O(log n) after the
 * index is rebuilt; NULL also when the index cannot be built (no memory). */
struct sym_mapping *sym_space_find(struct sym_space *s, uint64_t pc,
				   uint64_t time_ns)
{
	size_t lo = 0, hi, n;
	struct sym_mapping *m;

	if (s->dirty && sym_space_index(s) < 0)
		return NULL;
	hi = s->nbounds;
	while (lo < hi) {                 /* lo = first bound above pc */
		size_t mid = lo + (hi - lo) / 2;

		if (s->bounds[mid] <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || lo == s->nbounds)
		return NULL;
	n = s->first[lo] - s->first[lo - 1];
	if (n == 0)
		return NULL;
	m = s->maps[sym_cover_pick(s, &s->cover[s->first[lo - 1]], n, time_ns)];
	if (!m->obj_tried)
		sym_space_open(s, m);
	return m;
}
