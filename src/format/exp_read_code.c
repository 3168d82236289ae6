/* SPDX-License-Identifier: MIT
 *
 * exp_read_code.c — code.dat (JAVA_METHOD, JIT_CODE, JIT_UNLOAD records) and
 * THREAD_NAME records into a loaded process (see exp_read_code.h).
 *
 * Every length inside a record is checked against the record's own length
 * before a byte is copied: the strings of a JAVA_METHOD record must each end
 * in a NUL exactly where their lengths say, and the line tables must fit.
 * A record that fails is skipped whole (the loader counts it as damage).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_read_code.h"

/* Copy of the string of `len` bytes (NUL included) at `s`, which must end in
 * its only NUL.  *bad is set when it does not. */
static char *take_str(const char *s, uint32_t len, bool *bad)
{
	if (len == 0 || s[len - 1] != 0 || memchr(s, 0, len) != s + len - 1) {
		*bad = true;
		return NULL;
	}
	return strdup(s);
}

static uint32_t *take_lines(const void *src, uint32_t n)
{
	uint32_t *lines = malloc(n ? 8u * n : 8u);

	if (lines)
		memcpy(lines, src, 8u * n);
	return lines;
}

static void free_method(struct exp_java_method_ev *m)
{
	free(m->klass);
	free(m->name);
	free(m->sig);
	free(m->src);
	free(m->lines);
}

int exp_take_java_method(struct exp_proc *p, size_t *cap, const void *rec, uint32_t len,
			 char *cause, size_t cause_len)
{
	struct exp_java_method r;

	memcpy(&r, rec, sizeof(r));
	uint64_t strings = (uint64_t)r.class_len + r.name_len + r.sig_len + r.src_len;
	uint64_t need = sizeof(r) + 8ull * r.nlines + strings;
	if (!r.method || r.method > EXP_JAVA_METHOD_MASK) {
		snprintf(cause, cause_len, "java-method record for method 0x%llx",
			 (unsigned long long)r.method);
		return 1;
	}
	if (need > len || (need + 7) / 8 * 8 != len) {
		snprintf(cause, cause_len, "java-method record of %u lines and %llu bytes of names has length %u",
			 r.nlines, (unsigned long long)strings, len);
		return 1;
	}
	const char *s = (const char *)rec + sizeof(r) + 8u * r.nlines;
	struct exp_java_method_ev m = { .method = r.method, .flags = r.flags, .nlines = r.nlines };
	bool bad = false;
	m.klass = take_str(s, r.class_len, &bad);
	m.name = bad ? NULL : take_str(s + r.class_len, r.name_len, &bad);
	m.sig = bad ? NULL : take_str(s + r.class_len + r.name_len, r.sig_len, &bad);
	m.src = bad ? NULL : take_str(s + r.class_len + r.name_len + r.sig_len, r.src_len, &bad);
	m.lines = bad ? NULL : take_lines((const char *)rec + sizeof(r), r.nlines);
	if (bad) {
		free_method(&m);
		snprintf(cause, cause_len, "java-method record whose names do not end where their lengths say");
		return 1;
	}
	if (!m.klass || !m.name || !m.sig || !m.src || !m.lines ||
	    exp_grow(&p->jmethods, cap, p->njmethods, sizeof(*p->jmethods))) {
		free_method(&m);
		return -1;
	}
	p->jmethods[p->njmethods++] = m;
	return 0;
}

static int add_dyn(struct exp_proc *p, size_t *cap, struct exp_jit_ev *e)
{
	if (exp_grow(&p->jit, cap, p->njit, sizeof(*p->jit)))
		return -1;
	e->order = (uint32_t)p->njit;
	p->jit[p->njit++] = *e;
	return 0;
}

int exp_take_jit_code(struct exp_proc *p, size_t *cap, const void *rec, uint32_t len,
		      char *cause, size_t cause_len)
{
	struct exp_jit_code r;

	memcpy(&r, rec, sizeof(r));
	uint64_t name_bytes = ((uint64_t)r.name_len + 7) / 8 * 8;
	if (sizeof(r) + name_bytes + 8ull * r.nlines != len) {
		snprintf(cause, cause_len, "jit-code record of a %u-byte name and %u lines has length %u",
			 r.name_len, r.nlines, len);
		return 1;
	}
	if (!r.size || r.start + r.size < r.start || r.kind < EXP_JIT_JAVA || r.kind > EXP_JIT_OTHER ||
	    (r.kind == EXP_JIT_JAVA) != (r.method != 0)) {
		snprintf(cause, cause_len, "jit-code record of kind %u for 0x%llx+%llu", r.kind,
			 (unsigned long long)r.start, (unsigned long long)r.size);
		return 1;
	}
	bool bad = false;
	struct exp_jit_ev e = { .kind = r.kind, .time_ns = r.time_ns, .start = r.start,
				.size = r.size, .method = r.method, .nlines = r.nlines };
	e.name = take_str((const char *)rec + sizeof(r), r.name_len, &bad);
	if (bad) {
		snprintf(cause, cause_len, "jit-code record whose name does not end where its length says");
		return 1;
	}
	e.lines = take_lines((const char *)rec + sizeof(r) + name_bytes, r.nlines);
	if (!e.name || !e.lines || add_dyn(p, cap, &e)) {
		free(e.name);
		free(e.lines);
		return -1;
	}
	return 0;
}

/* Places by offset; of one offset, the first written first (its frames
 * came first). */
static int cmp_inline_place(const void *a, const void *b)
{
	const struct exp_jit_inline_place *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

int exp_take_jit_inline(struct exp_proc *p, const void *rec, uint32_t len, char *cause, size_t cause_len)
{
	struct exp_jit_inline r;
	const uint8_t *b = rec;
	size_t at = sizeof(r), nframes = 0;

	memcpy(&r, rec, sizeof(r));
	for (uint32_t i = 0; i < r.npcs; i++) {
		struct exp_jit_inline_pc pc;
		if (at + sizeof(pc) > len) {
			snprintf(cause, cause_len, "jit-inline record of %u entries ends after %u of them "
				 "(length %u)", r.npcs, i, len);
			return 1;
		}
		memcpy(&pc, b + at, sizeof(pc));
		if (pc.nframes < 2 || pc.nframes > EXP_JIT_INLINE_DEPTH_MAX) {
			snprintf(cause, cause_len, "jit-inline record's entry %u has %u frames", i, pc.nframes);
			return 1;
		}
		at += sizeof(pc) + (size_t)pc.nframes * sizeof(struct exp_jit_inline_frame);
		nframes += pc.nframes;
	}
	if (at != len) {
		snprintf(cause, cause_len, "jit-inline record of %u entries has length %u", r.npcs, len);
		return 1;
	}
	struct exp_jit_ev *e = NULL;
	for (size_t i = p->njit; i-- > 0 && !e;)
		if (!p->jit[i].unload && p->jit[i].start == r.start)
			e = &p->jit[i];
	if (!e || e->kind != EXP_JIT_JAVA) {
		snprintf(cause, cause_len, "jit-inline record for 0x%llx, which no compiled Java method's "
			 "jit-code record before it starts", (unsigned long long)r.start);
		return 1;
	}
	if (!r.npcs)
		return 0;
	struct exp_jit_inline_place *places = realloc(e->inlines, (e->ninline + (size_t)r.npcs) * sizeof(*places));
	if (!places)
		return -1;
	e->inlines = places;
	struct exp_jit_inline_frame *frames = realloc(e->inline_frames,
						      (e->ninline_frames + nframes) * sizeof(*frames));
	if (!frames)
		return -1;
	e->inline_frames = frames;
	at = sizeof(r);
	for (uint32_t i = 0; i < r.npcs; i++) {
		struct exp_jit_inline_pc pc;
		memcpy(&pc, b + at, sizeof(pc));
		at += sizeof(pc);
		places[e->ninline++] = (struct exp_jit_inline_place){ pc.offset, pc.nframes, e->ninline_frames };
		memcpy(frames + e->ninline_frames, b + at, (size_t)pc.nframes * sizeof(*frames));
		e->ninline_frames += pc.nframes;
		at += (size_t)pc.nframes * sizeof(*frames);
	}
	return 0;
}

void exp_jit_inlines_sort(struct exp_proc *p)
{
	/* Each record is written by offset, but one code's records may come
	 * in any order: the whole by offset, for exp_jit_inline_at. */
	for (size_t i = 0; i < p->njit; i++)
		if (p->jit[i].ninline > 1)
			qsort(p->jit[i].inlines, p->jit[i].ninline, sizeof(*p->jit[i].inlines), cmp_inline_place);
}

uint32_t exp_jit_inline_at(const struct exp_jit_ev *e, uint64_t off, const struct exp_jit_inline_frame **frames)
{
	size_t lo = 0, hi = e->ninline;

	while (lo < hi) {             /* the first place at or after off */
		size_t mid = lo + (hi - lo) / 2;
		if (e->inlines[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == e->ninline)
		return 0;
	*frames = e->inline_frames + e->inlines[lo].first;
	return e->inlines[lo].nframes;
}

int exp_take_jit_unload(struct exp_proc *p, size_t *cap, const void *rec, uint32_t len,
			char *cause, size_t cause_len)
{
	struct exp_jit_unload r;

	(void)len;
	(void)cause;
	(void)cause_len;
	memcpy(&r, rec, sizeof(r));
	struct exp_jit_ev e = { .unload = true, .time_ns = r.time_ns, .start = r.start,
				.method = r.method };
	return add_dyn(p, cap, &e);
}

int exp_take_thread_name(struct exp_thread_ev *t, const void *rec, uint32_t len, char *cause,
			 size_t cause_len)
{
	struct exp_thread_name r;
	const char *name = (const char *)rec + sizeof(r);
	size_t room = len - sizeof(r);
	const char *nul = memchr(name, 0, room);

	memcpy(&r, rec, sizeof(r));
	if (!nul || nul - name >= EXP_THREAD_NAME_MAX) {
		snprintf(cause, cause_len, "thread-name record without a name of at most %d bytes",
			 EXP_THREAD_NAME_MAX - 1);
		return 1;
	}
	bool java = (r.flags & EXP_THREAD_NAME_JAVA) != 0;
	/* A Java thread's own name beats the JVM's truncated native one.  Native
	 * names: the latest wins (records are not in time order).  Java names:
	 * the first, the name the thread worked under (the java launcher's main
	 * thread comes back as "DestroyJavaVM" to end the JVM). */
	if ((t->java_name && !java) ||
	    (t->java_name == java && t->name_ns && (java ? r.time_ns > t->name_ns : r.time_ns < t->name_ns)))
		return 0;
	memcpy(t->name, name, (size_t)(nul - name) + 1);
	t->name_ns = r.time_ns;
	t->java_name = java;
	return 0;
}

static int cmp_jit(const void *a, const void *b)
{
	const struct exp_jit_ev *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_method(const void *a, const void *b)
{
	const struct exp_java_method_ev *x = a, *y = b;

	if (x->method != y->method)
		return x->method < y->method ? -1 : 1;
	/* A named record before an unnamed one of the same method. */
	return (int)(x->flags & EXP_JAVA_METHOD_UNNAMED) - (int)(y->flags & EXP_JAVA_METHOD_UNNAMED);
}

void exp_code_sort(struct exp_proc *p)
{
	if (p->njit)
		qsort(p->jit, p->njit, sizeof(*p->jit), cmp_jit);
	if (p->njmethods)
		qsort(p->jmethods, p->njmethods, sizeof(*p->jmethods), cmp_method);
}

const struct exp_java_method_ev *exp_java_method_find(const struct exp_proc *p, uint64_t method)
{
	size_t lo = 0, hi = p->njmethods;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->jmethods[mid].method < method)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->njmethods && p->jmethods[lo].method == method ? &p->jmethods[lo] : NULL;
}

void exp_code_free(struct exp_proc *p)
{
	for (size_t i = 0; i < p->njmethods; i++)
		free_method(&p->jmethods[i]);
	for (size_t i = 0; i < p->njit; i++) {
		free(p->jit[i].name);
		free(p->jit[i].lines);
		free(p->jit[i].inlines);
		free(p->jit[i].inline_frames);
	}
	free(p->jmethods);
	free(p->jit);
	p->jmethods = NULL;
	p->jit = NULL;
	p->njmethods = p->njit = 0;
}
