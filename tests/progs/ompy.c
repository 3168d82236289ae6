/* ompy: an OpenMP program that measures its own phases, for the user view
 * of OpenMP (tests/e2e/test_structure.sh).  Run with OMP_WAIT_POLICY=active
 * so that idle workers spin (and so use CPU time the profile must show as
 * <OMP-idle>).
 *
 *   prepare()    serial
 *   compute()    a parallel loop, dynamic chunks: the parallel work
 *   imbalance()  a parallel region where thread 0 works alone, then an
 *                explicit barrier at which the others wait
 *   tail()       serial again, while the workers idle
 *
 * The phases lie between the markers ompy_begin and ompy_end (tally.h's
 * tally_marker, when the program runs under tally): idle workers keep
 * spinning after main, while the collector writes the experiment.
 * Prints the process CPU time of each phase (all threads), the master's own
 * CPU time in imbalance's lone work and in tail, the workers' spinning
 * between regions while the master was switched out, the workers' CPU time
 * across the ompy_end marker's call (edge: the marker's time is taken
 * somewhere inside it, so that spinning may fall on either side of the
 * profile's window; tail stops before the call), and the total:
 *   prepare P compute C imbalance I lone W tail T tail_master M gaps G
 *   edge E total Z
 * usage: ompy [scale]
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOIPA __attribute__((noinline))
static volatile unsigned long sink;
#define SPIN(n) do { unsigned long x_ = sink; for (unsigned long i_ = 0; i_ < (n); i_++) { \
	x_ = x_ * 6364136223846793005UL + 1442695040888963407UL; __asm__ volatile("" : "+r"(x_)); } \
	sink = x_; } while (0)

static unsigned long unit;

void tally_marker(const char *name) __attribute__((weak));   /* from libtally, if loaded */

static void marker(const char *name)
{
	if (tally_marker)
		tally_marker(name);
}

static double cpu(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

NOIPA static void prepare(void) { SPIN(60 * unit); }

NOIPA static void compute(void)
{
#pragma omp parallel for schedule(dynamic, 1)
	for (int i = 0; i < 400; i++)
		SPIN(unit);
	sink++;                 /* no tail call: compute stays on the stack */
}

static double lone;

NOIPA static void imbalance(void)
{
#pragma omp parallel
	{
		if (omp_get_thread_num() == 0) {
			double t0 = cpu(CLOCK_THREAD_CPUTIME_ID);
			SPIN(30 * unit);
			lone = cpu(CLOCK_THREAD_CPUTIME_ID) - t0;
		}
#pragma omp barrier
	}
	sink++;
}

NOIPA static void tail(void) { SPIN(100 * unit); }   /* long: the workers' idle is a share to check */

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0;
	unit = (unsigned long)(500000 * scale);
	marker("ompy_begin");
	double t0 = cpu(CLOCK_PROCESS_CPUTIME_ID);
	prepare();
	double t1 = cpu(CLOCK_PROCESS_CPUTIME_ID);
	compute();
	/* Reading the process's CPU clock settles the scheduler's accounts, so
	 * on a loaded machine the master is often switched out just after a
	 * read, between two regions, while the workers spin: <OMP-idle> in the
	 * profile.  A second read measures that gap apart. */
	double t2 = cpu(CLOCK_PROCESS_CPUTIME_ID), t2b = cpu(CLOCK_PROCESS_CPUTIME_ID);
	imbalance();
	double t3 = cpu(CLOCK_PROCESS_CPUTIME_ID), t3b = cpu(CLOCK_PROCESS_CPUTIME_ID);
	double m0 = cpu(CLOCK_THREAD_CPUTIME_ID);
	tail();
	double t4 = cpu(CLOCK_PROCESS_CPUTIME_ID), m1 = cpu(CLOCK_THREAD_CPUTIME_ID);
	marker("ompy_end");
	double t5 = cpu(CLOCK_PROCESS_CPUTIME_ID), m2 = cpu(CLOCK_THREAD_CPUTIME_ID);
	printf("prepare %.4f compute %.4f imbalance %.4f lone %.4f tail %.4f tail_master %.4f gaps %.4f "
	       "edge %.4f total %.4f\n", t1 - t0, t2 - t1, t3 - t2b, lone, t4 - t3b, m1 - m0,
	       (t2b - t2) + (t3b - t3), (t5 - t4) - (m2 - m1), t5);
	return 0;
}
