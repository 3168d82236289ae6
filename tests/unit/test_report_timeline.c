/* SPDX-License-Identifier: MIT
 *
 * test_report_timeline.c — report_timeline_track, the timeline's (and the
 * Chrome export's) track lookup by (process, thread id, name), indexed
 * since a 32,000-thread experiment made its scan of every track quadratic:
 * on tracks asked for in a scattered order, with repeats, ids shared by
 * processes and names shared by ids, every answer is the one a scan of the
 * tracks made so far gives, and a new track only for a new key; and the
 * lookups' cost grows as the tracks do, not as their square (rev-tests 7:
 * the scan gives the same answers, so only the growth can tell them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report_timeline.h"
#include "testhelp.h"

/* The old lookup: the first track with the key, else -1. */
static long scan(const struct report_timeline *tl, uint32_t proc, uint32_t tid, const char *name)
{
	for (size_t i = 0; i < tl->ntracks; i++)
		if (tl->tracks[i].proc == proc && tl->tracks[i].tid == tid && !strcmp(tl->tracks[i].name, name))
			return (long)i;
	return -1;
}

static void tracks_found_as_a_scan_finds_them(void)
{
	struct report_timeline tl;
	enum { KEYS = 6000, ASKS = 3 * KEYS };
	size_t made = 0, wrong = 0;

	memset(&tl, 0, sizeof(tl));
	for (size_t i = 0; i < ASKS; i++) {
		size_t k = (i * 7919) % KEYS;            /* each key three times, scattered */
		uint32_t proc = (uint32_t)(k % 3), tid = (uint32_t)(100 + k / 6);
		char name[64];
		/* two names per (proc, tid): a thread's and a view's own */
		snprintf(name, sizeof(name), "%s %u", k % 2 ? "states" : "worker", tid);
		long want = scan(&tl, proc, tid, name);
		long got = report_timeline_track(&tl, proc, tid, name);
		if (want < 0)
			want = (long)made++;
		if (got != want && !wrong++)
			printf("  key %zu (proc %u, tid %u, %s): track %ld, a scan gives %ld\n", k, proc, tid, name, got,
			       want);
	}
	CHECKF(!wrong, "%zu of %d lookups differ from a scan", wrong, ASKS);
	CHECKF(tl.ntracks == KEYS && made == KEYS, "%zu tracks for %d keys", tl.ntracks, KEYS);
	report_timeline_free(&tl);
	CHECK(tl.ntracks == 0 && tl.track_index == NULL);
}

/* This process's CPU seconds for `keys` new tracks, each then asked for
 * twice more: the least of 3 tries (the load only adds). */
static double cpu_for(size_t keys)
{
	double best = 1e9;

	for (int try = 0; try < 3; try++) {
		struct report_timeline tl;
		struct timespec a, b;
		char name[64];

		memset(&tl, 0, sizeof(tl));
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		for (size_t i = 0; i < 3 * keys; i++) {
			size_t k = (i * 7919) % keys;
			snprintf(name, sizeof(name), "worker %zu", k);
			report_timeline_track(&tl, (uint32_t)(k % 3), (uint32_t)(100 + k), name);
		}
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		report_timeline_free(&tl);
		double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		if (s < best)
			best = s;
	}
	return best;
}

/* 8 times the tracks: about 8 times the CPU for an index (more as its
 * table outgrows the caches), 64 for a scan (the build before: the scan
 * itself); 20 between them. */
static void lookups_grow_with_the_tracks(void)
{
	double small = cpu_for(2000), big = cpu_for(16000);

	printf("  CPU for 2,000 tracks (6,000 lookups) %.6f s, for 16,000 %.6f s: %.1f times\n", small, big,
	       big / small);
	CHECKF(small > 0 && big < 20 * small, "%.6f s then %.6f s", small, big);
}

int main(void)
{
	RUN(tracks_found_as_a_scan_finds_them);
	RUN(lookups_grow_with_the_tracks);
	TEST_EXIT();
}
