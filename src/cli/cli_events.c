/* SPDX-License-Identifier: MIT
 *
 * cli_events.c — what `tally record -c EVENT[/PERIOD]` and `--states` need
 * from the machine, checked before the target starts: each counter is
 * opened once in tally's own process, the way the collector will open it in
 * the target's threads; a machine without a PMU, or a kernel that refuses,
 * gets one line naming the cause and what works instead.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_events.h"

#define CMD "record"

int cli_event_open_counting(const struct exp_event *ev, int excl_kernel)
{
	struct perf_event_attr a;

	exp_event_attr(ev, excl_kernel, true, &a);
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int paranoid(void)
{
	int v = 2;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

/* Does the kernel know a CPU PMU (/sys/bus/event_source/devices/cpu*)? */
static bool have_pmu(void)
{
	struct stat st;

	return stat("/sys/bus/event_source/devices/cpu", &st) == 0 ||
	       stat("/sys/bus/event_source/devices/cpu_core", &st) == 0 ||
	       stat("/sys/bus/event_source/devices/cpu_atom", &st) == 0;
}

int cli_events_check(const struct exp_event *evs, int n)
{
	for (int i = 0; i < n; i++) {
		const struct exp_event *ev = &evs[i];
		int fd = cli_event_open_counting(ev, 0);
		if (fd < 0)
			fd = cli_event_open_counting(ev, 1);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		int e = errno;
		if (exp_event_is_hardware(ev) && (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || !have_pmu()))
			cli_error(CMD, "-c %s: this machine has no hardware performance counters "
				  "(perf_event_open: %s%s); software events that work here: %s",
				  ev->name, strerror(e),
				  have_pmu() ? "" : "; no CPU PMU in /sys/bus/event_source/devices: a virtual "
						    "machine without a virtual PMU?",
				  exp_event_software_names());
		else if (e == EACCES || e == EPERM)
			cli_error(CMD, "-c %s: perf_event_open is not permitted (%s; perf_event_paranoid is %d: "
				  "2 allows a process's own events, 3 and more none; run as root or lower it)",
				  ev->name, strerror(e), paranoid());
		else if (e == EINVAL && ev->type == PERF_TYPE_RAW)
			cli_error(CMD, "-c %s: the PMU does not take raw event 0x%llx (perf_event_open: %s)",
				  ev->name, (unsigned long long)ev->config, strerror(e));
		else
			cli_error(CMD, "-c %s: perf_event_open: %s (sigtrap events need Linux 5.13 or newer)",
				  ev->name, strerror(e));
		return -1;
	}
	return 0;
}
