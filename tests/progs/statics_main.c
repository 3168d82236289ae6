/* statics_main.c: see statics_a.c.  Prints the share of its CPU time each
 * of run_a and run_b took ("share a 0.3341" / "share b 0.6659", its
 * thread's clock): two copies of one loop may run at different speeds
 * where the compiler or the linker placed them differently, so the tests
 * compare with this, not with the 1:2 of the iteration counts. */
#include <stdio.h>
#include <time.h>

void run_a(unsigned long n);
void run_b(unsigned long n);

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	double a = 0, b = 0;

	for (int i = 0; i < 100; i++) {
		double t0 = cpu_s();
		run_a(1000000);
		double t1 = cpu_s();
		run_b(1000000);
		double t2 = cpu_s();
		a += t1 - t0;
		b += t2 - t1;
	}
	printf("share a %.4f\nshare b %.4f\n", a / (a + b), b / (a + b));
	return 0;
}
