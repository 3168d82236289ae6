/* pg_args.c — instrumented functions whose arguments live in vector
 * registers (doubles, a variadic call): the profiling entry points, including
 * their slow path on the very first call, must leave them intact.  Build with
 * -pg (or -pg -mfentry, or -finstrument-functions); prints the results and
 * exits 0 if they are right.  usage: pg_args */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) double mix(double a, double b, double c, double d,
				     double e, double f, double g, double h)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

__attribute__((noinline)) double sum(int n, ...)
{
	va_list ap;
	double s = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, double);
	va_end(ap);
	return s;
}

int main(void)
{
	char buf[64];
	double m = mix(1, 2, 3, 4, 5, 6, 7, 8);       /* 204 */
	double s = sum(3, 0.5, 1.25, 2.25);            /* 4 */
	snprintf(buf, sizeof(buf), "%.2f %.2f", m, s);
	puts(buf);
	return strcmp(buf, "204.00 4.00") != 0;
}
