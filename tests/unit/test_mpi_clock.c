/* SPDX-License-Identifier: MIT
 *
 * test_mpi_clock.c — a rank's times put on rank 0's clock (model_clock.c,
 * docs/mpi.md "Time across hosts"), from the mpi.clock.* keys of a rank's
 * log: an offset alone; offsets at start and end that differ by more than
 * their errors (a drift: interpolated between, held outside); offsets that
 * differ by less (the more precise one throughout); incomplete keys.  Each
 * against the arithmetic done here by hand.
 */
#include "model/model_build_int.h"
#include "testhelp.h"

/* A founder process whose log holds `kv` (key, value, ..., NULL). */
static struct exp_proc proc_with(struct exp_kv *log, const char **kv)
{
	struct exp_proc p;
	size_t n = 0;

	memset(&p, 0, sizeof(p));
	for (; kv[2 * n]; n++)
		log[n] = (struct exp_kv){ (char *)kv[2 * n], (char *)kv[2 * n + 1] };
	p.log = log;
	p.nlog = n;
	return p;
}

static void none_measured(void)
{
	struct exp_kv log[8];
	const char *kv[] = { "mpi.rank", "1", "mpi.clock.offset_ns", "500", NULL };   /* no rtt, no at */
	struct exp_proc p = proc_with(log, kv);
	struct model_clock k;

	model_clock_read(&k, &p);
	CHECK(!k.measured);
	CHECK(model_clock_align(&k, 12345) == 12345);
}

static void offset_alone(void)
{
	struct exp_kv log[8];
	const char *kv[] = { "mpi.clock.offset_ns", "-1000000000000", "mpi.clock.rtt_ns", "40000",
			     "mpi.clock.at_ns", "5000000000000", NULL };
	struct exp_proc p = proc_with(log, kv);
	struct model_clock k;

	model_clock_read(&k, &p);
	CHECK(k.measured && k.err_ns == 20000 && k.drift == 0);
	CHECK(model_clock_align(&k, 5000000000000ull) == 4000000000000ull);
	CHECK(model_clock_align(&k, 7000000000000ull) == 6000000000000ull);
	CHECK(model_clock_align(&k, 999) == 0);            /* before rank 0's clock began: 0 */
}

static void drift_interpolated(void)
{
	struct exp_kv log[8];
	/* +1 ms at t = 10 s, +3 ms at t = 20 s (errors 5 us and 10 us): 200 ppm */
	const char *kv[] = { "mpi.clock.offset_ns", "1000000", "mpi.clock.rtt_ns", "10000",
			     "mpi.clock.at_ns", "10000000000", "mpi.clock.end.offset_ns", "3000000",
			     "mpi.clock.end.rtt_ns", "20000", "mpi.clock.end.at_ns", "20000000000", NULL };
	struct exp_proc p = proc_with(log, kv);
	struct model_clock k;

	model_clock_read(&k, &p);
	CHECK(k.measured && k.err_ns == 10000);
	CHECKF(model_clock_align(&k, 10000000000ull) == 10001000000ull, "%llu",
	       (unsigned long long)model_clock_align(&k, 10000000000ull));
	CHECK(model_clock_align(&k, 15000000000ull) == 15002000000ull);   /* halfway: +2 ms */
	CHECK(model_clock_align(&k, 20000000000ull) == 20003000000ull);
	CHECK(model_clock_align(&k, 25000000000ull) == 25003000000ull);   /* held after the end */
	CHECK(model_clock_align(&k, 5000000000ull) == 5001000000ull);     /* and before the start */
	k.order_ns = -700;                                                  /* message order's part */
	CHECK(model_clock_align(&k, 15000000000ull) == 15001999300ull);
}

static void noise_is_no_drift(void)
{
	struct exp_kv log[8];
	/* +1 ms +- 2 ms at start, +1.5 ms +- 10 us at the end: the change (0.5 ms)
	 * is within the errors; the end's offset, the more precise, throughout */
	const char *kv[] = { "mpi.clock.offset_ns", "1000000", "mpi.clock.rtt_ns", "4000000",
			     "mpi.clock.at_ns", "10000000000", "mpi.clock.end.offset_ns", "1500000",
			     "mpi.clock.end.rtt_ns", "20000", "mpi.clock.end.at_ns", "20000000000", NULL };
	struct exp_proc p = proc_with(log, kv);
	struct model_clock k;

	model_clock_read(&k, &p);
	CHECK(k.measured && k.drift == 0 && k.err_ns == 10000);
	CHECK(model_clock_align(&k, 10000000000ull) == 10001500000ull);
	CHECK(model_clock_align(&k, 30000000000ull) == 30001500000ull);
}

int main(void)
{
	RUN(none_measured);
	RUN(offset_alone);
	RUN(drift_interpolated);
	RUN(noise_is_no_drift);
	TEST_EXIT();
}
