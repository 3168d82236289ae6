/* SPDX-License-Identifier: MIT
 *
 * test_report_oom.c — out of memory in the views and exports never crashes
 * and never loses data silently.  malloc, calloc and realloc are replaced in
 * this program by versions that fail the k-th call (or every call from the
 * k-th on); every view and export of a hand-built model is run, in each
 * format, with k = 0, 1, 2, ... until a run needs fewer allocations than k.  Each run must either say it failed
 * (the document's error, or -1 with errno ENOMEM from an export) or produce
 * exactly the output of a run without failures.  (Skipped under ASan, whose
 * allocator cannot be replaced so.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
int main(void)
{
	printf("[Skipped: ASan's allocator cannot be replaced] every_failure_is_said\n");
	return 0;
}
#else
#include "model_fixture.h"
#include "report/report.h"
#include "report/report_gprof.h"
#include "testhelp.h"

static long fail_at = -1;          /* the call that fails (0-based); -1: none */
static bool fail_after;            /* and every one after it */
static long calls;                 /* counted while armed */

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);
void *malloc(size_t n);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);
void free(void *p);

static int fails(void)
{
	if (fail_at < 0 || (fail_after ? calls++ < fail_at : calls++ != fail_at))
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return fails() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fails() ? NULL : __libc_realloc(p, n);
}

void free(void *p)
{
	__libc_free(p);
}

enum { TOTAL, MAIN, WORK, LEAF, IO, PEER, NFUNCS };

/* A model with every kind of data the views show: cpu and heap by stack,
 * recursion, arcs with counts, threads, files, two processes. */
static void build(void)
{
	static struct exp_thread_ev th = { .tid = 11, .name = "worker", .start_routine = 0x10 };
	static struct exp_kv log[] = { { "created-by", "fork" } };
	static struct exp_proc src[2] = {
		{ .lineage = "", .exe = "/bin/prog", .name = "prog", .pid = 1 },
		{ .lineage = "_f1", .exe = "/bin/peer", .name = "peer", .pid = 2, .ppid = 1,
		  .log = log, .nlog = 1 },
	};
	const char *names[] = { "<Total>", "main", "work", "leaf(int)", "do_io", "peer" };

	model_reset();
	for (int i = 0; i < NFUNCS; i++)
		add_func(names[i]);
	add_entry((uint32_t[]){ MAIN, WORK, WORK, LEAF }, 4, 100);
	add_entry((uint32_t[]){ MAIN, WORK }, 2, 50);
	add_entry((uint32_t[]){ MAIN, IO }, 2, 20);
	add_entry((uint32_t[]){ MAIN, PEER, LEAF }, 3, 5);
	for (size_t i = 0; i < m.nentries; i++) {
		model_entry_add_value(&m, &m.entries[i], MODEL_HEAP_BYTES, 1000 * (i + 1));
		model_entry_add_value(&m, &m.entries[i], MODEL_HEAP_COUNT, i + 1);
		model_entry_add_value(&m, &m.entries[i], MODEL_HEAP_LEAK, i ? 100 * i : 0);
		m.total[MODEL_HEAP_BYTES] += 1000 * (i + 1);
		m.total[MODEL_HEAP_COUNT] += i + 1;
		m.total[MODEL_HEAP_LEAK] += i ? 100 * i : 0;
	}
	m.entries[3].proc = 1;
	m.present |= 1u << MODEL_HEAP_BYTES | 1u << MODEL_HEAP_COUNT | 1u << MODEL_HEAP_LEAK;
	m.heap_peak = (struct model_heap_peak){ 4000, 77, 2 };
	m.procs = realloc(m.procs, 2 * sizeof(*m.procs));
	memset(&m.procs[1], 0, sizeof(m.procs[1]));
	m.procs[0].src = &src[0];
	m.procs[1].src = &src[1];
	m.procs[1].rank = 1;                 /* two ranks for --ranks */
	snprintf(m.procs[0].label, sizeof(m.procs[0].label), "[prog 1]");
	snprintf(m.procs[1].label, sizeof(m.procs[1].label), "[peer 2]");
	m.nprocs = 2;
	m.threads = calloc(2, sizeof(*m.threads));
	m.threads[0] = (struct model_thread){ .tid = 10, .samples = 3, .v = { [MODEL_CPU] = 170 } };
	m.threads[1] = (struct model_thread){ .tid = 11, .src = &th, .routine = WORK, .samples = 2,
					      .v = { [MODEL_CPU] = 5 } };
	m.nthreads = 2;
	m.files = calloc(2, sizeof(*m.files));
	m.files[0] = (struct model_file){ strdup("/etc/passwd"), { [MODEL_IO_BYTES] = 300 }, { 0, 1, 1, 2 } };
	m.files[1] = (struct model_file){ strdup("fd 7"), { [MODEL_IO_BYTES] = 10 }, { 0, 0, 0, 1 } };
	m.nfiles = 2;
	m.arcs = calloc(3, sizeof(*m.arcs));
	m.arcs[0] = (struct model_arc){ MAIN, WORK, 2, 0, EXP_ARCS_MCOUNT };
	m.arcs[1] = (struct model_arc){ WORK, WORK, 5, 0, EXP_ARCS_MCOUNT };
	m.arcs[2] = (struct model_arc){ WORK, LEAF, 9, 0, EXP_ARCS_MCOUNT };
	m.narcs = 3;
}

enum job { VIEW_FUNCTIONS, VIEW_CALLERS, VIEW_TREE, VIEW_THREADS, VIEW_OBJECTS, VIEW_LEAKS,
	   VIEW_FILES, VIEW_PROCESSES, VIEW_GPROF, VIEW_GPROF_PROP, VIEW_RANKS, VIEW_RANKS_SUMMARY, VIEW_MESSAGES,
	   EXPORT_COLLAPSED,
	   EXPORT_ARCS, EXPORT_CALLGRIND, JOBS };

/* Run one job into `out`; returns 1 if it says it failed, 0 if not. */
static int run(enum job job, enum report_format fmt, FILE *out)
{
	struct report_opts o = { .fmt = fmt, .metrics = { MODEL_CPU, MODEL_HEAP_BYTES },
				 .nmetrics = 2, .threshold_pct = 1.0 };
	int rc = 0;

	if (job >= EXPORT_COLLAPSED) {
		errno = 0;
		rc = job == EXPORT_ARCS ? report_arcs(out, &m)
		     : job == EXPORT_CALLGRIND ? report_callgrind(out, &m, NULL, 0)
					       : report_collapsed(out, &m, MODEL_HEAP_BYTES);
		if (rc && errno != ENOMEM)
			printf("  job %d: failed, errno %d instead of ENOMEM\n", job, errno);
		return rc != 0;
	}
	struct report_doc *d = report_doc_new(out, fmt);
	if (!d)
		return 1;
	switch (job) {
	case VIEW_FUNCTIONS: report_functions(d, &m, &o); break;
	case VIEW_CALLERS: rc = report_callers(d, &m, &o, "work"); break;
	case VIEW_TREE: report_tree(d, &m, &o); break;
	case VIEW_THREADS: report_threads(d, &m, &o); break;
	case VIEW_OBJECTS: report_objects(d, &m, &o); break;
	case VIEW_LEAKS: report_leaks(d, &m, &o); break;
	case VIEW_FILES: report_files(d, &m); break;
	case VIEW_PROCESSES: report_processes(d, &m, &o); break;
	case VIEW_GPROF: rc = report_gprof(d, &m, &o, MODEL_GPROF_STACKS); break;
	case VIEW_GPROF_PROP: rc = report_gprof(d, &m, &o, MODEL_GPROF_PROPAGATE); break;
	case VIEW_RANKS: report_ranks(d, &m, &o, REPORT_RANKS_AUTO); break;
	case VIEW_RANKS_SUMMARY: report_ranks(d, &m, &o, REPORT_RANKS_SUMMARY); break;
	case VIEW_MESSAGES: report_messages(d, &m, &o); break;
	default: break;
	}
	const char *e = report_doc_error(d);
	if (e && strncmp(e, "out of memory while building ", 29))
		printf("  job %d: unexpected error '%s'\n", job, e);
	int failed = rc != 0 || e != NULL;
	report_doc_end(d);
	return failed;
}

/* The bytes written to f since it was rewound. */
static char *contents(FILE *f, size_t *len)
{
	fflush(f);
	long n = ftell(f);
	char *p = malloc((size_t)n + 1);

	rewind(f);
	*len = fread(p, 1, (size_t)n, f);
	rewind(f);
	if (ftruncate(fileno(f), 0) != 0)
		abort();
	return p;
}

static void every_failure_is_said(void)
{
	FILE *f = tmpfile();
	long runs = 0, said = 0;

	build();
	for (int job = 0; job < JOBS; job++) {
		for (int fmt = REPORT_TEXT; fmt <= REPORT_JSON; fmt++) {
			if (job >= EXPORT_COLLAPSED && fmt > REPORT_TEXT)
				break;
			size_t rlen, len;
			CHECKF(run(job, fmt, f) == 0, "job %d format %d fails without injection", job, fmt);
			char *ref = contents(f, &rlen);
			for (long k = 0, after = 0; after < 2; k++) {
				calls = 0;
				fail_at = k;
				fail_after = after;
				int failed = run(job, fmt, f);
				fail_at = -1;
				char *got = contents(f, &len);
				runs++;
				said += failed;
				bool same = len == rlen && !memcmp(got, ref, len);
				CHECKF(failed || same, "job %d format %d: allocation %ld%s failed silently",
				       job, fmt, k, after ? " and the next ones" : "");
				free(got);
				if (calls <= k) {        /* no allocation failed: done */
					after++;
					k = -1;
				}
			}
			free(ref);
		}
	}
	printf("  %ld runs, %ld said out of memory\n", runs, said);
	CHECK(said > 100);
	fclose(f);
}

int main(void)
{
	RUN(every_failure_is_said);
	model_free(&m);
	TEST_EXIT();
}
#endif
