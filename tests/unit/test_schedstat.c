/* SPDX-License-Identifier: MIT
 *
 * test_schedstat.c — /proc/TID/schedstat's text parsed (format/
 * exp_schedstat.h): the line Linux writes, this very thread's file, and
 * odd inputs: a short line, a field cut off, huge numbers (2^64 - 1 is
 * read, one more is refused, never wrapped), missing and empty fields,
 * signs, a later kernel's fourth field.
 */
#include <stdint.h>
#include <stdio.h>

#include "format/exp_schedstat.h"
#include "testhelp.h"

static void parses_the_kernels_line(void)
{
	struct exp_schedstat s;

	CHECK(exp_schedstat_parse("123456789 4242 17\n", &s));
	CHECK(s.cpu_ns == 123456789 && s.run_delay_ns == 4242 && s.slices == 17);
	CHECK(exp_schedstat_parse("0 0 0", &s));
	CHECK(s.cpu_ns == 0 && s.run_delay_ns == 0 && s.slices == 0);
	CHECK(exp_schedstat_parse("  1\t2  3 99\n", &s));       /* blanks; a fourth field */
	CHECK(s.cpu_ns == 1 && s.run_delay_ns == 2 && s.slices == 3);
}

static void parses_this_threads_file(void)
{
	char buf[128];
	struct exp_schedstat s;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f)
		SKIP("no /proc/thread-self/schedstat here (a kernel without CONFIG_SCHED_INFO)");
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	CHECKF(exp_schedstat_parse(buf, &s), "'%s'", buf);
	CHECK(s.slices > 0);                  /* it ran (its CPU may read 0 this early) */
}

static void refuses_short_and_missing(void)
{
	struct exp_schedstat s;

	CHECK(!exp_schedstat_parse("", &s));
	CHECK(!exp_schedstat_parse("\n", &s));
	CHECK(!exp_schedstat_parse("123", &s));
	CHECK(!exp_schedstat_parse("123 456", &s));
	CHECK(!exp_schedstat_parse("123 456\n", &s));
	CHECK(!exp_schedstat_parse("123 456 ", &s));
	CHECK(!exp_schedstat_parse(" 123  456  \n7", &s));       /* the third on the next line */
	CHECK(!exp_schedstat_parse(NULL, &s));
}

static void refuses_odd_fields(void)
{
	struct exp_schedstat s;

	CHECK(!exp_schedstat_parse("-1 2 3", &s));
	CHECK(!exp_schedstat_parse("1 +2 3", &s));
	CHECK(!exp_schedstat_parse("1 2 3x", &s));               /* cut into another token */
	CHECK(!exp_schedstat_parse("1 2 0x3", &s));
	CHECK(!exp_schedstat_parse("a b c", &s));
	CHECK(!exp_schedstat_parse("1,2,3", &s));
}

static void huge_numbers_never_wrap(void)
{
	struct exp_schedstat s;

	CHECK(exp_schedstat_parse("18446744073709551615 18446744073709551615 18446744073709551615\n", &s));
	CHECK(s.cpu_ns == UINT64_MAX && s.run_delay_ns == UINT64_MAX && s.slices == UINT64_MAX);
	CHECK(exp_schedstat_parse("00000000000000000000000000042 1 2", &s));    /* leading zeros are no overflow */
	CHECK(s.cpu_ns == 42);
	CHECK(!exp_schedstat_parse("18446744073709551616 1 2", &s));            /* 2^64 */
	CHECK(!exp_schedstat_parse("1 99999999999999999999 2", &s));
	CHECK(!exp_schedstat_parse("1 2 184467440737095516150", &s));
}

int main(void)
{
	RUN(parses_the_kernels_line);
	RUN(parses_this_threads_file);
	RUN(refuses_short_and_missing);
	RUN(refuses_odd_fields);
	RUN(huge_numbers_never_wrap);
	TEST_EXIT();
}
