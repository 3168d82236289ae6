/* SPDX-License-Identifier: MIT
 *
 * cli_datasrc.c — `tally record --data`: the data addresses come from a
 * precise memory event when the PMU offers one (docs/dataspace.md,
 * "Recording precise samples"), else from the clock samples' registers.
 *
 * The PMUs are sysfs directories (/sys/bus/event_source/devices/NAME, with
 * `type`, `events/EVENT` = "event=0xcd,umask=0x1,ldlat=3" and
 * `format/TERM` = "config:0-7"): an event's terms are placed into
 * config/config1/config2 by its PMU's formats, as perf does.  The first
 * candidate of the table found is opened once in tally's own process with
 * the collector's attributes (exp_event_attr: sigtrap, the sample fields of
 * format/exp_perf_mem.h), precise_ip from the highest the candidate allows
 * down; the first that opens is chosen.  What was chosen, or why none was,
 * is one line for the log (`data.source`), which the overview shows.
 * TALLY_PMU_SYSFS replaces the sysfs directory (a test's crafted PMU).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_datasrc.h"
#include "cli/cli_events.h"

#define SYSFS "/sys/bus/event_source/devices"

/* The precise memory events, in the order tried. */
static const struct candidate {
	const char *metric;        /* the metric's name in the reports */
	const char *pmu;           /* its PMU's sysfs directory */
	const char *event;         /* events/EVENT of that PMU; NULL: config 0 */
	int precise_max, precise_min;   /* precise_ip tried, highest first */
	uint64_t period;           /* accesses per sample */
	const char *unread;        /* non-NULL: found but not read, and why */
} candidates[] = {
	{ "mem-loads", "cpu", "mem-loads", 3, 1, 10007, NULL },        /* Intel PEBS load latency */
	{ "mem-loads", "cpu_core", "mem-loads", 3, 1, 10007, NULL },   /* Intel hybrid: the big cores */
	{ "ibs_op", "ibs_op", NULL, 2, 1, 100003, NULL },              /* AMD IBS op */
	{ "spe", "arm_spe_0", NULL, 0, 0, 0,
	  "its samples come through the AUX area, which tally does not read" },   /* arm64 SPE */
};
#define NCANDIDATES (sizeof(candidates) / sizeof(candidates[0]))

/* The first line of DIR/PMU/NAME into buf; false if unreadable. */
static bool read_line(const char *dir, const char *pmu, const char *name, char *buf, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s/%s", dir, pmu, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return ok;
}

/* Put `value` into the bits a format ("config1:0-15", "config:0-7,32-35")
 * names, low bits first.  false if the format is not understood. */
static bool place(const char *format, uint64_t value, uint64_t cfg[3])
{
	int which = !strncmp(format, "config1:", 8) ? 1 : !strncmp(format, "config2:", 8) ? 2
		    : !strncmp(format, "config:", 7) ? 0 : -1;
	if (which < 0)
		return false;
	const char *p = strchr(format, ':') + 1;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (end == p)
			return false;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (hi < lo || hi > 63)
			return false;
		for (unsigned long b = lo; b <= hi; b++, value >>= 1)
			cfg[which] |= (value & 1) << b;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return false;
	}
	return true;
}

/* The event's terms placed by its PMU's formats into cfg.  false, with
 * the term in `bad`, when a term or its format cannot be read. */
static bool event_config(const char *dir, const char *pmu, const char *spec, uint64_t cfg[3], char *bad,
			 size_t len)
{
	char copy[256], fmt[128], name[160];
	snprintf(copy, sizeof(copy), "%s", spec);
	for (char *save = NULL, *term = strtok_r(copy, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(term, '=');
		uint64_t v = 1;
		if (eq) {
			*eq = 0;
			v = strtoull(eq + 1, NULL, 0);
		}
		snprintf(name, sizeof(name), "format/%s", term);
		if (!read_line(dir, pmu, name, fmt, sizeof(fmt)) || !place(fmt, v, cfg)) {
			snprintf(bad, len, "%s", term);
			return false;
		}
	}
	return true;
}

/* Open `ev` once as the collector will (user mode; kernel refusals are the
 * collector's to retry); 0 or an errno. */
static int probe(const struct exp_event *ev)
{
	int fd = cli_event_open_counting(ev, 1);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

bool cli_datasrc_choose(struct exp_event *ev, char *why, size_t len)
{
	const char *dir = getenv("TALLY_PMU_SYSFS") && *getenv("TALLY_PMU_SYSFS") ? getenv("TALLY_PMU_SYSFS")
										    : SYSFS;
	char line[256], bad[64];
	const char *refused = NULL;
	char refusal[256] = "";

	for (size_t i = 0; i < NCANDIDATES; i++) {
		const struct candidate *c = &candidates[i];
		char evfile[160];
		if (!read_line(dir, c->pmu, "type", line, sizeof(line)))
			continue;
		if (c->unread) {
			snprintf(refusal, sizeof(refusal), "%s is here, but %s", c->pmu, c->unread);
			refused = refusal;
			continue;
		}
		uint64_t cfg[3] = { 0 };
		memset(ev, 0, sizeof(*ev));
		snprintf(ev->name, sizeof(ev->name), "%s", c->metric);
		ev->type = (uint32_t)strtoul(line, NULL, 10);
		ev->period = c->period;
		if (c->event) {
			snprintf(evfile, sizeof(evfile), "events/%s", c->event);
			if (!read_line(dir, c->pmu, evfile, line, sizeof(line)))
				continue;                /* this PMU has no such event */
			bool placed = event_config(dir, c->pmu, line, cfg, bad, sizeof(bad));
			if (placed && cfg[2]) {      /* the event carries config and config1 only */
				snprintf(bad, sizeof(bad), "%s", "config2");
				placed = false;
			}
			if (!placed) {
				snprintf(refusal, sizeof(refusal), "%s/%s: term '%s' has no format tally reads",
					 c->pmu, c->event, bad);
				refused = refusal;
				continue;
			}
		}
		ev->config = cfg[0];
		ev->config1 = cfg[1];
		int err = 0;
		for (int p = c->precise_max; p >= c->precise_min; p--) {
			ev->precise = (uint8_t)p;
			if (!(err = probe(ev)))
				break;
		}
		if (!err) {
			snprintf(why, len, "precise %s samples (PMU %s, type %u, config 0x%llx, config1 0x%llx, "
				 "precise_ip %u, every %llu), with their data source", ev->name, c->pmu, ev->type,
				 (unsigned long long)ev->config, (unsigned long long)ev->config1, ev->precise,
				 (unsigned long long)ev->period);
			return true;
		}
		snprintf(refusal, sizeof(refusal), "%s (PMU %s, type %u, config 0x%llx, config1 0x%llx) would not "
			 "open: %s (errno %d)", c->metric, c->pmu, ev->type, (unsigned long long)ev->config,
			 (unsigned long long)ev->config1, strerror(err), err);
		refused = refusal;
	}
	memset(ev, 0, sizeof(*ev));
	if (refused)
		snprintf(why, len, "clock samples (the registers at each sample): %s", refused);
	else
		snprintf(why, len, "clock samples (the registers at each sample): no precise memory event "
			 "(none of cpu/events/mem-loads, cpu_core/events/mem-loads, ibs_op, arm_spe_0 in %s)", dir);
	return false;
}
