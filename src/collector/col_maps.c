/* SPDX-License-Identifier: MIT
 *
 * col_maps.c — a thread's stack bounds from /proc/PID/maps: the mapping that
 * holds a stack pointer, scanned a read at a time aside (col_fds_read_each).
 * For the threads whose stack the thread library does not tell: raw clones
 * (col_rawthread.c) and an attached process's threads (col_attach.c).
 */
#include <stdint.h>
#include <string.h>

#include "collector/col_fds.h"
#include "collector/col_log.h"
#include "collector/col_maps.h"
#include "collector/col_state.h"

static uint64_t hex_digit(char c)
{
	return c >= '0' && c <= '9' ? (uint64_t)(c - '0') : (uint64_t)((c | 0x20) - 'a' + 10);
}

/* Scanning /proc/PID/maps for the mapping that holds `sp`, a read at a
 * time (col_fds_read_each: in the helper of col_fds_aside, raw system
 * calls and little stack). */
struct maps_scan {
	uint64_t sp, lo, hi;
	uint64_t a, b;
	int field;                /* 0: start, 1: end, 2: rest of the line */
};

static int scan_maps(void *arg, const char *buf, size_t n)
{
	struct maps_scan *m = arg;

	for (size_t i = 0; i < n; i++) {
		char c = buf[i];
		if (c == '\n') {
			if (m->sp >= m->a && m->sp < m->b) {
				m->lo = m->a;
				m->hi = m->b;
				return 1;
			}
			m->a = m->b = 0;
			m->field = 0;
		} else if (m->field == 0) {
			if (c == '-')
				m->field = 1;
			else
				m->a = m->a << 4 | hex_digit(c);
		} else if (m->field == 1) {
			if (c == ' ')
				m->field = 2;
			else
				m->b = m->b << 4 | hex_digit(c);
		}
	}
	return 0;
}

void col_stack_bounds_sigsafe(uint64_t sp, uint64_t *lo, uint64_t *hi)
{
	char buf[4096], path[64] = "/proc/";
	struct maps_scan m = { .sp = sp };
	int n = (int)strlen(path);

	n += col_fmt_u64_sigsafe(path + n, (uint64_t)col_proc.pid);
	strcpy(path + n, "/maps");
	col_fds_read_each(path, buf, sizeof(buf), scan_maps, &m);
	*lo = m.lo;
	*hi = m.hi;
}

