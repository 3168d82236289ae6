/* SPDX-License-Identifier: MIT
 *
 * testhelp.h — the unit-test harness: a CHECK that says where it failed, and
 * one result line per test case that tests/run.sh counts:
 *
 *   [Success] test_name
 *   [Failed] test_name: file.c:42: a == b
 *   [Skipped: why] test_name
 *
 * A test case is a function `static void name(void)`; RUN(name) runs it.
 * The program's exit status is 1 if any case failed.
 */
#ifndef TALLY_TESTHELP_H
#define TALLY_TESTHELP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int th_failed_cases, th_case_failed;
static const char *th_skip_reason;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			if (!th_case_failed)                                 \
				printf("  %s:%d: CHECK(%s) failed\n", __FILE__, \
				       __LINE__, #cond);                     \
			th_case_failed = 1;                                  \
		}                                                            \
	} while (0)

/* CHECK with a printf-style explanation when it fails. */
#define CHECKF(cond, ...)                                                    \
	do {                                                                 \
		if (!(cond)) {                                               \
			printf("  %s:%d: CHECK(%s) failed: ", __FILE__,      \
			       __LINE__, #cond);                             \
			printf(__VA_ARGS__);                                 \
			printf("\n");                                        \
			th_case_failed = 1;                                  \
		}                                                            \
	} while (0)

#define SKIP(why)                                                            \
	do {                                                                 \
		th_skip_reason = (why);                                      \
		return;                                                      \
	} while (0)

#define RUN(fn)                                                              \
	do {                                                                 \
		th_case_failed = 0;                                          \
		th_skip_reason = NULL;                                       \
		fn();                                                        \
		if (th_skip_reason)                                          \
			printf("[Skipped: %s] %s\n", th_skip_reason, #fn);   \
		else if (th_case_failed)                                     \
			printf("[Failed] %s\n", #fn), th_failed_cases++;     \
		else                                                         \
			printf("[Success] %s\n", #fn);                       \
		fflush(stdout);                                              \
	} while (0)

#define TEST_EXIT() return th_failed_cases ? 1 : 0

#endif
