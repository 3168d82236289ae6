/* SPDX-License-Identifier: MIT
 *
 * col_interpose_dlopen.c — dlopen() and dlclose(), interposed: the object
 * map and the unwinder's snapshot are rescanned after each (col_objects.h).
 * Called from any thread of the target.
 */
#include <dlfcn.h>

#include "collector/col_init.h"
#include "collector/col_objects.h"
#include "collector/col_real.h"
#include "collector/col_state.h"
#include "collector/col_time.h"

COL_API void *dlopen(const char *file, int mode)
{
	void *(*real)(const char *, int) = col_real_table()->dlopen;

	col_ensure_init();
	uint64_t t0 = col_now_ns_sigsafe();
	void *h = real(file, mode);
	if (h && col_proc.active)
		col_objects_rescan(t0);
	return h;
}

COL_API int dlclose(void *handle)
{
	int rc = col_real_table()->dlclose(handle);

	if (col_proc.active)
		col_objects_rescan(0);
	return rc;
}
