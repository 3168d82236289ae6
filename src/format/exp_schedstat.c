/* SPDX-License-Identifier: MIT
 *
 * exp_schedstat.c — /proc/TID/schedstat's text parsed (exp_schedstat.h),
 * without libc: the collector calls it from signal handlers and from the
 * aside helper's small stack.  Sigsafe file.
 */
#include "format/exp_schedstat.h"

/* The next decimal field of *p, past blanks, into *v; false if there is
 * none or it does not fit 64 bits. */
static bool field(const char **p, uint64_t *v)
{
	const char *c = *p;

	while (*c == ' ' || *c == '\t')
		c++;
	if (*c < '0' || *c > '9')
		return false;
	for (*v = 0; *c >= '0' && *c <= '9'; c++) {
		uint64_t d = (uint64_t)(*c - '0');
		if (*v > (UINT64_MAX - d) / 10)
			return false;
		*v = *v * 10 + d;
	}
	*p = c;
	return true;
}

bool exp_schedstat_parse(const char *text, struct exp_schedstat *out)
{
	const char *p = text;

	if (!p || !field(&p, &out->cpu_ns) || !field(&p, &out->run_delay_ns) || !field(&p, &out->slices))
		return false;
	return *p == 0 || *p == '\n' || *p == ' ' || *p == '\t';
}
