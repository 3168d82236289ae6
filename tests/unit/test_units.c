/* SPDX-License-Identifier: MIT
 *
 * test_units.c — report_units: the human units of `--human` at every
 * boundary (a value that rounds up takes the next unit), negative values
 * (diff's changes), zero, and values past the last unit.
 */
#include "report/report_units.h"
#include "testhelp.h"

static const char *t(double ns)
{
	static char buf[48];

	report_units_time(buf, sizeof(buf), ns);
	return buf;
}

static const char *c(double v)
{
	static char buf[48];

	report_units_count(buf, sizeof(buf), v);
	return buf;
}

#define SAME(got, want) CHECKF(!strcmp((got), (want)), "got \"%s\", want \"%s\"", (got), (want))

static void times_keep_three_digits(void)
{
	SAME(t(0), "0");
	SAME(t(0.4), "0");
	SAME(t(7), "7 ns");
	SAME(t(999), "999 ns");
	SAME(t(999.6), "1.00 us");
	SAME(t(1234), "1.23 us");
	SAME(t(45600000), "45.6 ms");
	SAME(t(812000), "812 us");
	SAME(t(999499999), "999 ms");
	SAME(t(999500000), "1.00 s");
	SAME(t(1.234e9), "1.23 s");
	SAME(t(51.267e9), "51.3 s");
	SAME(t(3725e9), "3725 s");
	SAME(t(-2.5e6), "-2.50 ms");
}

static void counts_in_thousands_and_more(void)
{
	SAME(c(0), "0");
	SAME(c(9999), "9999");
	SAME(c(10000), "10.0K");
	SAME(c(1055225), "1.06M");
	SAME(c(470767), "471K");
	SAME(c(999499), "999K");
	SAME(c(999500), "1.00M");
	SAME(c(7.89e9), "7.89G");
	SAME(c(1.2e12), "1.20T");
	SAME(c(4.2e15), "4200T");
	SAME(c(-43629), "-43.6K");
}

int main(void)
{
	RUN(times_keep_three_digits);
	RUN(counts_in_thousands_and_more);
	TEST_EXIT();
}
