/* SPDX-License-Identifier: MIT
 *
 * col_threadstack.h — a thread's own stack bounds, as pthread_getattr_np
 * gives them, found without malloc and without /proc/self/maps.
 */
#ifndef TALLY_COL_THREADSTACK_H
#define TALLY_COL_THREADSTACK_H

#include <stdbool.h>
#include <stdint.h>

/* The initial thread's stack as pthread_getattr_np gives it, [*lo, *hi),
 * found without reading /proc/self/maps.  False (nothing set) when it
 * cannot be (an unlimited or over 1 GiB stack limit, a layout not as
 * execve makes it, a caller on another stack): ask pthread_getattr_np.
 * Any thread; not sigsafe (getauxval). */
bool col_thread_main_stack(uint64_t *lo, uint64_t *hi);

/* The calling thread's stack as pthread_getattr_np gives it, [*lo, *hi),
 * for a thread the thread library made (pthread_create, or a fork child
 * of one): read from its thread descriptor, without pthread_getattr_np,
 * which copies the thread's CPU affinity into a malloc'd block (a thread's
 * first malloc makes it an arena: 64 MiB of the program's address space
 * reserved for each thread).  False (nothing set) when the descriptor does
 * not show one stack that holds the caller's: ask /proc/self/maps.  Any
 * thread; sigsafe. */
bool col_thread_pthread_stack(uint64_t *lo, uint64_t *hi);

#endif
