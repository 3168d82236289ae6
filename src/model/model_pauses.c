/* SPDX-License-Identifier: MIT
 *
 * model_pauses.c — a process's "control: TIME_NS off|on REASON CPU_NS" log
 * lines (written by the collector, src/collector/col_control.c) replayed
 * in time order into the stretches where at least one reason held
 * recording off.  Called by the overview and the timeline, once per
 * process; a handful of lines each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_data.h"
#include "format/exp_launch.h"
#include "model/model_pauses.h"

struct change {
	uint64_t time_ns, cpu_ns;
	int reason;
	int off;
	size_t order;                /* the log's order, for equal times */
};

static int cmp_change(const void *a, const void *b)
{
	const struct change *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* One line's value; false if it does not parse. */
static bool parse(const char *v, struct change *c)
{
	char *end;
	c->time_ns = strtoull(v, &end, 10);
	if (end == v || *end != ' ')
		return false;
	v = end + 1;
	if (!strncmp(v, "off ", 4))
		c->off = 1, v += 4;
	else if (!strncmp(v, "on ", 3))
		c->off = 0, v += 3;
	else
		return false;
	const char *sp = strchr(v, ' ');
	size_t len = sp ? (size_t)(sp - v) : strlen(v);
	c->reason = exp_pause_parse(v, len);
	c->cpu_ns = sp ? strtoull(sp + 1, NULL, 10) : 0;
	return c->reason >= 0;
}

/* The process's CPU time at its end, if logged; else 0. */
static uint64_t cpu_at_end(const struct exp_proc *p)
{
	const char *v = exp_proc_log(p, "cpu.end_ns");
	return v ? strtoull(v, NULL, 10) : 0;
}

long model_pauses(const struct exp_proc *p, struct model_pause **out)
{
	struct change *ch = NULL;
	size_t n = 0, cap = 0;
	struct model_pause *pz = NULL;
	size_t np = 0;

	*out = NULL;
	for (size_t k = 0; k < p->nlog; k++) {
		struct change c;
		if (strcmp(p->log[k].key, EXP_LOG_CONTROL) || !parse(p->log[k].value, &c))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			struct change *grown = realloc(ch, cap * sizeof(*ch));
			if (!grown) {
				free(ch);
				return -1;
			}
			ch = grown;
		}
		c.order = n;
		ch[n++] = c;
	}
	if (!n)
		return 0;
	qsort(ch, n, sizeof(*ch), cmp_change);
	if (!(pz = calloc(n, sizeof(*pz)))) {   /* at most one stretch per change */
		free(ch);
		return -1;
	}
	unsigned bits = 0;
	uint64_t last = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned was = bits;
		bits = ch[i].off ? bits | 1u << ch[i].reason : bits & ~(1u << ch[i].reason);
		last = ch[i].time_ns;
		if (!was && bits) {
			pz[np].start_ns = ch[i].time_ns;
			pz[np].cpu_ns = ch[i].cpu_ns;      /* the start's, until the end */
			pz[np].first = (unsigned)ch[i].reason;
			pz[np].reasons = bits;
			np++;
		} else if (was && bits) {
			pz[np - 1].reasons |= bits;
		} else if (was && !bits) {
			struct model_pause *z = &pz[np - 1];
			z->end_ns = ch[i].time_ns;
			z->cpu_ns = ch[i].cpu_ns > z->cpu_ns && z->cpu_ns ? ch[i].cpu_ns - z->cpu_ns : 0;
		}
	}
	if (bits) {                                  /* open at the end */
		struct model_pause *z = &pz[np - 1];
		uint64_t end_cpu = cpu_at_end(p);
		z->end_ns = p->end_ns > last ? p->end_ns : last;
		z->cpu_ns = end_cpu > z->cpu_ns && z->cpu_ns ? end_cpu - z->cpu_ns : 0;
	}
	free(ch);
	*out = pz;
	return (long)np;
}

const char *model_pause_reasons(unsigned bits, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int r = 0; r < EXP_PAUSE_COUNT_ && n < len; r++)
		if (bits & 1u << r)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      exp_pause_name((enum exp_pause_reason)r));
	return buf;
}
