/* forkspin.c — a fork child that computes without exec'ing: it spins for
 * SECONDS of its own CPU time (its process clock), prints that CPU, and
 * ends by _exit (no destructor runs); the parent waits for it and prints
 * the child's CPU as the kernel accounted it (wait4's rusage).
 * usage: forkspin [SECONDS]
 * prints: "child_cpu_ns N" (its own clock) and "kernel_cpu_ns N". */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

__attribute__((noinline)) static double child_spin(unsigned long long until_ns)
{
	volatile double x = 1.0;

	while (cpu_ns() < until_ns)
		for (int i = 0; i < 10000; i++)
			x = x * 1.0000001 + 1e-9;
	return x;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.3;

	fflush(stdout);
	pid_t p = fork();
	if (p < 0)
		return 2;
	if (p == 0) {
		child_spin(cpu_ns() + (unsigned long long)(seconds * 1e9));
		printf("child_cpu_ns %llu\n", cpu_ns());
		fflush(stdout);
		_exit(0);
	}
	int st;
	struct rusage ru;
	if (wait4(p, &st, 0, &ru) != p || !WIFEXITED(st))
		return 3;
	printf("kernel_cpu_ns %llu\n", (unsigned long long)ru.ru_utime.tv_sec * 1000000000ull +
					     (unsigned long long)ru.ru_utime.tv_usec * 1000ull +
					     (unsigned long long)ru.ru_stime.tv_sec * 1000000000ull +
					     (unsigned long long)ru.ru_stime.tv_usec * 1000ull);
	return 0;
}
