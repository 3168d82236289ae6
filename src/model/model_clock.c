/* SPDX-License-Identifier: MIT
 *
 * model_clock.c — a rank's times put on rank 0's clock (docs/mpi.md "Time
 * across hosts").  The tracer logged, after MPI_Init and before
 * MPI_Finalize, rank 0's time minus the rank's (mpi.clock.offset_ns,
 * mpi.clock.end.offset_ns), when (…at_ns) and within what (half of
 * …rtt_ns).  Between the two the offset is interpolated (the drift);
 * before the first and after the second it is held.  A change between the
 * two no larger than their errors is no measured drift: the more precise
 * offset is then used throughout.  Called once per process as it is added
 * (model_build.c), and for every time the model keeps (model_entries.c).
 */
#include <stdlib.h>

#include "model/model_build_int.h"

static bool log_i64(const struct exp_proc *p, const char *key, int64_t *v)
{
	const char *s = exp_proc_log(p, key);
	char *end;

	if (!s)
		return false;
	long long x = strtoll(s, &end, 10);
	if (end == s || *end)
		return false;
	*v = x;
	return true;
}

void model_clock_read(struct model_clock *k, const struct exp_proc *founder)
{
	int64_t off0, rtt0, at0, off1, rtt1, at1;

	*k = (struct model_clock){ 0 };
	if (!log_i64(founder, "mpi.clock.offset_ns", &off0) || !log_i64(founder, "mpi.clock.rtt_ns", &rtt0) ||
	    !log_i64(founder, "mpi.clock.at_ns", &at0) || rtt0 < 0 || at0 < 0)
		return;
	k->measured = true;
	k->at_ns = k->end_ns = (uint64_t)at0;
	k->offset_ns = off0;
	k->err_ns = (uint64_t)rtt0 / 2;
	if (!log_i64(founder, "mpi.clock.end.offset_ns", &off1) ||
	    !log_i64(founder, "mpi.clock.end.rtt_ns", &rtt1) || !log_i64(founder, "mpi.clock.end.at_ns", &at1) ||
	    rtt1 < 0 || at1 <= at0)
		return;
	int64_t change = off1 - off0;
	if ((uint64_t)llabs(change) > (uint64_t)(rtt0 + rtt1) / 2) {
		k->end_ns = (uint64_t)at1;
		k->drift = (double)change / (double)(at1 - at0);
		k->err_ns = (uint64_t)(rtt0 > rtt1 ? rtt0 : rtt1) / 2;
	} else if (rtt1 < rtt0) {
		k->at_ns = k->end_ns = (uint64_t)at1;
		k->offset_ns = off1;
		k->err_ns = (uint64_t)rtt1 / 2;
	}
}

uint64_t model_clock_align(const struct model_clock *k, uint64_t t)
{
	if (!k->measured)
		return t;
	int64_t off = k->offset_ns + k->order_ns;
	if (k->drift != 0 && t > k->at_ns)
		off += (int64_t)(k->drift * (double)((t < k->end_ns ? t : k->end_ns) - k->at_ns));
	return (int64_t)t + off < 0 ? 0 : (uint64_t)((int64_t)t + off);
}
