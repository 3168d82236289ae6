/* SPDX-License-Identifier: MIT
 *
 * exp_events.c — counter event names and the TALLY_COUNTERS string (see
 * exp_events.h).  Linked into both `tally` and the collector.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_events.h"
#include "format/exp_perf_mem.h"

#define CACHE(id, op, res) ((id) | (PERF_COUNT_HW_CACHE_OP_##op << 8) | (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

/* perf's names (and its aliases), with the default period: about a thousand
 * samples a second on a busy core for the frequent hardware events, every
 * event for the rare software ones. */
static const struct known {
	const char *name;
	uint32_t type;
	uint64_t config;
	uint64_t period;
} known[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1000003 },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1000003 },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1000003 },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 100003 },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 10007 },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 100003 },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 100003 },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 10007 },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, 100003 },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 1000003 },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 1000003 },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 1000003 },
	{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_L1D, READ, MISS), 10007 },
	{ "LLC-load-misses", PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_LL, READ, MISS), 10007 },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_DTLB, READ, MISS), 10007 },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1 },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1 },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, 1 },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1 },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1 },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1 },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 1 },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 1 },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, 1 },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, 1 },
};
#define NKNOWN (sizeof(known) / sizeof(known[0]))
#define RAW_PERIOD 100003

/* The events perf_event gives without a PMU, for the refusal's message. */
static const char software_names[] =
	"page-faults, minor-faults, major-faults, context-switches, cpu-migrations";

const char *exp_event_software_names(void)
{
	return software_names;
}

bool exp_event_is_hardware(const struct exp_event *ev)
{
	return ev->type != PERF_TYPE_SOFTWARE;
}

/* "rNNNN": a raw event, NNNN its config in hex (perf's notation). */
static bool parse_raw(const char *name, size_t n, uint64_t *config)
{
	char hex[EXP_EVENT_NAME_MAX], *end;

	if (n < 2 || n >= sizeof(hex) || name[0] != 'r')
		return false;
	memcpy(hex, name + 1, n - 1);
	hex[n - 1] = 0;
	for (size_t i = 0; hex[i]; i++)
		if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f') ||
		      (hex[i] >= 'A' && hex[i] <= 'F')))
			return false;
	*config = strtoull(hex, &end, 16);
	return !*end;
}

int exp_event_parse(const char *spec, struct exp_event *ev, char *err, size_t errlen)
{
	const char *slash = strchr(spec, '/');
	size_t n = slash ? (size_t)(slash - spec) : strlen(spec);

	memset(ev, 0, sizeof(*ev));
	if (n == 0 || n >= EXP_EVENT_NAME_MAX) {
		snprintf(err, errlen, "-c %s: expected EVENT[/PERIOD], EVENT a name such as cycles or "
			 "page-faults, or rNNNN (a raw event in hex)", spec);
		return -1;
	}
	memcpy(ev->name, spec, n);
	ev->name[n] = 0;
	size_t i;
	for (i = 0; i < NKNOWN && strcmp(known[i].name, ev->name); i++)
		;
	if (i < NKNOWN) {
		ev->type = known[i].type;
		ev->config = known[i].config;
		ev->period = known[i].period;
	} else if (parse_raw(ev->name, n, &ev->config)) {
		ev->type = PERF_TYPE_RAW;
		ev->period = RAW_PERIOD;
	} else {
		snprintf(err, errlen, "-c %s: unknown event '%s' (hardware: cycles, instructions, "
			 "cache-references, cache-misses, branches, branch-misses, bus-cycles, "
			 "ref-cycles, L1-dcache-load-misses, LLC-load-misses, dTLB-load-misses; "
			 "software: %s; raw: rNNNN)", spec, ev->name, software_names);
		return -1;
	}
	if (slash) {
		char *end;
		unsigned long long p = strtoull(slash + 1, &end, 10);
		if (!slash[1] || *end || p == 0 || slash[1] == '-') {
			snprintf(err, errlen, "-c %s: the period is a number of events, at least 1", spec);
			return -1;
		}
		ev->period = p;
	}
	return 0;
}

int exp_events_encode(const struct exp_event *evs, int n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		int w = evs[i].precise
				? snprintf(buf + used, len - used, "%s%s/%llu/%x/%llx/%llx/%x", i ? "," : "",
					   evs[i].name, (unsigned long long)evs[i].period, evs[i].type,
					   (unsigned long long)evs[i].config, (unsigned long long)evs[i].config1,
					   evs[i].precise)
				: snprintf(buf + used, len - used, "%s%s/%llu", i ? "," : "", evs[i].name,
					   (unsigned long long)evs[i].period);
		if (w < 0 || (size_t)w >= len - used)
			return -1;
		used += (size_t)w;
	}
	return (int)used;
}

/* "NAME/PERIOD/TYPE/CONFIG/CONFIG1/PRECISE": a precise memory event as
 * `tally record` chose it (exp_events_encode).  0, or -1. */
static int parse_precise(const char *item, struct exp_event *ev)
{
	const char *slash = strchr(item, '/');
	unsigned long long v[5];
	const char *p;
	char *end;

	memset(ev, 0, sizeof(*ev));
	if (!slash || slash == item || (size_t)(slash - item) >= EXP_EVENT_NAME_MAX)
		return -1;
	p = slash + 1;
	for (int i = 0; i < 5; i++) {   /* the period in decimal, then hex */
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return -1;
		v[i] = strtoull(p, &end, i ? 16 : 10);
		if (*end != (i < 4 ? '/' : 0))
			return -1;
		p = end + 1;
	}
	if (!v[0] || v[1] > UINT32_MAX || v[4] < 1 || v[4] > 3)
		return -1;
	memcpy(ev->name, item, (size_t)(slash - item));
	ev->period = v[0];
	ev->type = (uint32_t)v[1];
	ev->config = v[2];
	ev->config1 = v[3];
	ev->precise = (uint8_t)v[4];
	return 0;
}

int exp_events_decode(const char *s, struct exp_event *evs, int max, int *bad)
{
	int n = 0, nbad = 0;

	while (s && *s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		char item[EXP_EVENT_NAME_MAX + 80], err[8];
		if (len && len < sizeof(item) && n < max) {
			memcpy(item, s, len);
			item[len] = 0;
			bool precise = strchr(item, '/') && strchr(strchr(item, '/') + 1, '/');
			if (precise ? parse_precise(item, &evs[n]) == 0
				    : exp_event_parse(item, &evs[n], err, sizeof(err)) == 0)
				n++;
			else
				nbad++;
		} else if (len) {
			nbad++;
		}
		s = end ? end + 1 : s + len;
	}
	if (bad)
		*bad = nbad;
	return n;
}

void exp_event_attr(const struct exp_event *ev, int excl_kernel, bool sigtrap, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = ev->type;
	a->size = sizeof(*a);
	a->config = ev->config;
	a->sample_period = ev->period;
	a->disabled = 1;
	a->exclude_kernel = (unsigned)excl_kernel;
	a->exclude_hv = 1;
	a->sigtrap = sigtrap;
	a->remove_on_exec = sigtrap;         /* required with sigtrap */
	if (ev->precise) {                   /* a precise memory event: its samples in its ring */
		a->config1 = ev->config1;
		a->precise_ip = ev->precise;
		a->sample_type = EXP_PERF_MEM_SAMPLE_TYPE;
	}
}
