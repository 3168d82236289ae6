/* SPDX-License-Identifier: MIT
 *
 * col_time.c — timestamps for every record: CLOCK_MONOTONIC nanoseconds, read
 * from the TSC where the CPU says it is invariant.
 *
 * A traced event needs a timestamp (to order a free after its allocation in
 * another thread, to filter by time), and clock_gettime costs 27 ns in this
 * VM against 10 ns for rdtsc: at millions of events that is a third of the
 * tracer's cost.  The TSC is calibrated against CLOCK_MONOTONIC over the
 * first 10 ms, then the anchor (a pair of readings) is renewed every second,
 * the ratio from the whole run so far, so the two clocks never drift apart by
 * more than microseconds.  Readers use a sequence count; whoever finds the
 * anchor stale renews it, one thread at a time.  Sigsafe file.
 * Layer 1: includes and calls nothing of the collector.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/platform/x86.h>
#include <time.h>
#include <x86intrin.h>

#include "collector/col_time.h"

#define CALIBRATE_NS 10000000ull        /* first ratio after 10 ms */
#define RENEW_NS 1000000000ull          /* new anchor every second */

static bool tsc_invariant;
static uint64_t start_tsc, start_ns;    /* first readings */
static _Atomic uint32_t seq;            /* odd while the anchor changes */
static uint64_t anchor_tsc, anchor_ns, mult, renew_ticks;   /* mult: ns per tick << 32 */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A TSC reading and a CLOCK_MONOTONIC one taken together: the TSC read on
 * both sides of the clock, the try with the fewest ticks between kept.  Two
 * plain reads in a row disagree by whatever preempted the thread between
 * them: on a loaded machine, milliseconds, which made the ratio (and so
 * every time until the next anchor) that wrong. */
static void pair_now(uint64_t *tsc, uint64_t *ns)
{
	uint64_t least = UINT64_MAX;

	for (int i = 0; i < 4; i++) {
		uint64_t a = __rdtsc(), n = mono_ns(), b = __rdtsc();
		if (b - a < least) {
			least = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}

/* The invariant-TSC bit as glibc read it at its start: a cpuid
 * instruction of our own is a VM exit, about 10 us in a VM. */
void col_time_init(void)
{
	tsc_invariant = CPU_FEATURE_PRESENT(INVARIANT_TSC);
	pair_now(&start_tsc, &start_ns);
}

/* Take a new anchor (and ratio) now, if no other thread is at it. */
static uint64_t renew(void)
{
	uint32_t s = atomic_load_explicit(&seq, memory_order_relaxed);
	uint64_t ns = 0, tsc = 0;

	if ((s & 1) || !atomic_compare_exchange_strong(&seq, &s, s + 1))
		return mono_ns();
	pair_now(&tsc, &ns);
	if (tsc > start_tsc && ns > start_ns) {
		mult = (uint64_t)(((unsigned __int128)(ns - start_ns) << 32) / (tsc - start_tsc));
		anchor_tsc = tsc;
		anchor_ns = ns;
		renew_ticks = mult ? (uint64_t)(((unsigned __int128)RENEW_NS << 32) / mult) : 0;
	}
	atomic_store_explicit(&seq, s + 2, memory_order_release);
	return ns;
}

uint64_t col_now_ns_sigsafe(void)
{
	if (!tsc_invariant)
		return mono_ns();
	for (;;) {
		uint32_t s = atomic_load_explicit(&seq, memory_order_acquire);
		uint64_t at = anchor_tsc, an = anchor_ns, m = mult, rt = renew_ticks;
		atomic_thread_fence(memory_order_acquire);
		if (s & 1)
			return mono_ns();             /* being renewed: the slow way */
		if (atomic_load_explicit(&seq, memory_order_relaxed) != s)
			continue;
		if (!m) {
			uint64_t ns = mono_ns();
			return ns - start_ns >= CALIBRATE_NS ? renew() : ns;
		}
		uint64_t d = __rdtsc() - at;
		if (d > rt)
			return renew();
		return an + (uint64_t)(((unsigned __int128)d * m) >> 32);
	}
}

uint64_t col_thread_cputime_ns_sigsafe(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t col_process_cputime_ns_sigsafe(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
