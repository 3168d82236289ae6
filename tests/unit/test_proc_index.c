/* SPDX-License-Identifier: MIT
 *
 * test_proc_index.c — model_proc_index.c: the critical path's process
 * lookups (the image a wait reaped, system()'s child, a lineage) give what
 * a scan of every process gives, and their work, counted in processes
 * looked at, grows as N log N: a shell loop of N commands, 2N + 1 images.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_data.h"
#include "model/model_proc_index.h"
#include "testhelp.h"

#define SHELL_PID 100u

/* A shell (pid 100) that forked and exec'd n commands one after another:
 * command i's fork image "_f<i>" started at 10 i, its exec image
 * "_f<i>_x1" at 10 i + 5, both pid 1000 + i (in a made-up order, so that
 * the index's sort matters). */
static struct exp_proc *shell_loop(size_t n, const struct exp_proc ***ptrs)
{
	struct exp_proc *v = calloc(2 * n + 1, sizeof(*v));
	const struct exp_proc **p = calloc(2 * n + 1, sizeof(*p));

	if (!v || !p)
		abort();
	v[0] = (struct exp_proc){ .pid = SHELL_PID, .ppid = 1, .lineage = strdup("") };
	for (size_t i = 1; i <= n; i++) {
		char l[32];
		size_t k = 1 + 2 * ((i * 7919) % n);   /* scattered */
		snprintf(l, sizeof(l), "_f%zu", i);
		v[k] = (struct exp_proc){ .pid = (uint32_t)(1000 + i), .ppid = SHELL_PID, .start_ns = 10 * i,
					  .lineage = strdup(l) };
		snprintf(l, sizeof(l), "_f%zu_x1", i);
		v[k + 1] = (struct exp_proc){ .pid = (uint32_t)(1000 + i), .ppid = SHELL_PID, .start_ns = 10 * i + 5,
					      .lineage = strdup(l) };
	}
	for (size_t j = 0; j < 2 * n + 1; j++)
		p[j] = &v[j];
	*ptrs = p;
	return v;
}

static void free_loop(struct exp_proc *v, const struct exp_proc **p, size_t n)
{
	for (size_t j = 0; j < 2 * n + 1; j++)
		free(v[j].lineage);
	free(v);
	free(p);
}

/* The scans the index replaced (model_critical*.c before it). */
static size_t scan_image_at(const struct exp_proc *const *p, size_t n, uint32_t pid, uint32_t ppid, uint64_t t)
{
	size_t best = n;

	for (size_t j = 0; j < n; j++)
		if (p[j]->pid == pid && p[j]->ppid == ppid && p[j]->start_ns <= t &&
		    (best == n || p[j]->start_ns >= p[best]->start_ns))
			best = j;
	return best;
}

static size_t scan_first_child(const struct exp_proc *const *p, size_t n, uint32_t ppid, uint64_t from, uint64_t to)
{
	size_t best = n;

	for (size_t j = 0; j < n; j++)
		if (p[j]->ppid == ppid && p[j]->pid != ppid && p[j]->start_ns >= from && p[j]->start_ns <= to &&
		    (best == n || p[j]->start_ns < p[best]->start_ns))
			best = j;
	return best;
}

static size_t scan_lineage(const struct exp_proc *const *p, size_t n, const char *l, size_t len)
{
	for (size_t j = 0; j < n; j++)
		if (strlen(p[j]->lineage) == len && !strncmp(p[j]->lineage, l, len))
			return j;
	return n;
}

/* Every command's three lookups, as the walk makes them; each answer the
 * scan's.  The processes looked at, or 0 on a wrong answer. */
static uint64_t lookups(size_t n)
{
	const struct exp_proc **p;
	struct exp_proc *v = shell_loop(n, &p);
	struct model_proc_index x;
	size_t all = 2 * n + 1;
	uint64_t probes = 0;
	bool same = true;

	CHECK(!model_proc_index_build(&x, p, all));
	for (size_t i = 1; i <= n && same; i++) {
		uint32_t pid = (uint32_t)(1000 + i);
		uint64_t grant = 10 * i + 9;
		char l[32];
		size_t a = model_proc_image_at(&x, pid, SHELL_PID, grant);
		size_t b = model_proc_first_child(&x, p[0], 0, 10 * i - 1, grant);
		int len = snprintf(l, sizeof(l), "_f%zu_x1", i) - 3;
		size_t c = model_proc_by_lineage(&x, l, (size_t)len);
		CHECKF(a == scan_image_at(p, all, pid, SHELL_PID, grant) && a < all && p[a]->start_ns == 10 * i + 5,
		       "image of %u: %zu", pid, a);
		CHECKF(b == scan_first_child(p, all, SHELL_PID, 10 * i - 1, grant) && b < all &&
		       p[b]->start_ns == 10 * i, "system child %zu: %zu", i, b);
		CHECKF(c == scan_lineage(p, all, l, (size_t)len) && c == b, "lineage %.*s: %zu", len, l, c);
		same = a < all && b < all && c == b;
	}
	CHECK(model_proc_image_at(&x, 999, SHELL_PID, 1u << 30) == all);     /* no such pid */
	CHECK(model_proc_image_at(&x, 1001, SHELL_PID, 9) == all);           /* not started yet */
	CHECK(model_proc_first_child(&x, p[2], 0, 0, 1u << 30) == all);      /* no children */
	CHECK(model_proc_by_lineage(&x, "_f1_x", 4) == scan_lineage(p, all, "_f1_x", 4));
	CHECK(model_proc_by_lineage(&x, "_f", 2) == all);
	CHECK(model_proc_by_lineage(&x, "", 0) == 0);
	probes = same ? x.probes : 0;
	model_proc_index_free(&x);
	free_loop(v, p, n);
	return probes;
}

/* 2,000 and 4,000 commands: the same answers as a scan, with at most 2
 * log2(images) + 4 processes looked at per lookup, and doubling N at most
 * 2.4 times the work (N log N: 2.2; a scan per lookup, N²: 4). */
static void lookups_grow_as_n_log_n(void)
{
	uint64_t w2 = lookups(2000), w4 = lookups(4000);
	double per2 = (double)w2 / (3 * 2000), per4 = (double)w4 / (3 * 4000);

	printf("  processes looked at: %llu for 2,000 commands (%.1f a lookup), %llu for 4,000 (%.1f)\n",
	       (unsigned long long)w2, per2, (unsigned long long)w4, per4);
	CHECK(w2 > 0 && w4 > 0);
	CHECKF(per2 <= 2 * 12 + 4 && per4 <= 2 * 13 + 4, "%.1f, %.1f a lookup", per2, per4);
	CHECKF(w4 < 2.4 * w2, "%llu then %llu", (unsigned long long)w2, (unsigned long long)w4);
}

/* system()'s child is the parent image's own and, where known, its
 * calling thread's: a child forked meanwhile by another thread (fork_tid
 * 77), or by another image of the same pid (lineage "_f1_f1" of the
 * "_f1" image), started first but is passed over (rev-report 8). */
static void system_child_is_the_callers(void)
{
	struct exp_proc v[5] = {
		{ .pid = 10, .ppid = 1, .start_ns = 0, .lineage = "" },
		{ .pid = 20, .ppid = 10, .start_ns = 100, .lineage = "_f1", .fork_tid = 77 },
		{ .pid = 21, .ppid = 10, .start_ns = 110, .lineage = "_f2_f1" },
		{ .pid = 22, .ppid = 10, .start_ns = 120, .lineage = "_f3_x1" },
		{ .pid = 23, .ppid = 10, .start_ns = 130, .lineage = "_f4", .fork_tid = 55 },
	};
	const struct exp_proc *p[5] = { &v[0], &v[1], &v[2], &v[3], &v[4] };
	struct model_proc_index x;

	CHECK(!model_proc_index_build(&x, p, 5));
	size_t any = model_proc_first_child(&x, p[0], 0, 50, 200);
	size_t by55 = model_proc_first_child(&x, p[0], 55, 50, 200);
	size_t by56 = model_proc_first_child(&x, p[0], 56, 105, 200);
	CHECKF(any == 1, "any thread: %zu", any);
	CHECKF(by55 == 3, "thread 55: %zu (a spawned child, its forker not known, comes first)", by55);
	CHECKF(by56 == 3, "thread 56 after the others: %zu", by56);
	CHECK(model_proc_first_child(&x, p[0], 55, 125, 200) == 4);
	CHECK(model_proc_first_child(&x, p[0], 56, 125, 200) == 5);
	model_proc_index_free(&x);
}

/* The one lineage parser: a fork's child is the parent's lineage, "_fN",
 * then "_xN" parts, each with digits; the root's exec chain "_xN" only.
 * Before, the fork's parser took "_f_x" and a trailing "_f1_". */
static void lineage_parts_need_digits(void)
{
	CHECK(model_lineage_after("_f1", "", true));
	CHECK(model_lineage_after("_f2_f1_x3", "_f2", true));
	CHECK(model_lineage_after("_x1_x12", "", false));
	CHECK(model_lineage_after("", NULL, false));
	CHECK(!model_lineage_after("_f_x", "", true));
	CHECK(!model_lineage_after("_f1_", "", true));
	CHECK(!model_lineage_after("_f1_f2", "", true));    /* a grandchild */
	CHECK(!model_lineage_after("_f1", "", false));      /* a fork, not an exec */
	CHECK(!model_lineage_after("_f3_x1", "_f2", true)); /* another's */
}

int main(void)
{
	RUN(lookups_grow_as_n_log_n);
	RUN(system_child_is_the_callers);
	RUN(lineage_parts_need_digits);
	TEST_EXIT();
}
