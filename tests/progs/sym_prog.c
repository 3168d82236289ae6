/* SPDX-License-Identifier: MIT
 *
 * sym_prog.c — test program for tests/unit/test_symbols.c: aliases of every
 * kind, a static function, a marker on a known line, and calls through the
 * PLT.  Built at test time with gcc -O2 -g (lazy, -z now, and IBT variants).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noipa, used))

volatile int sink;

NOINLINE int sym_marker(int x) { sink += x; return x * 3 + 1; } /* SYM_MARKER_LINE */

/* global + weak + underscored global at one address: real_impl wins */
NOINLINE void real_impl(void) { sink++; }
void alias_weak(void) __attribute__((weak, alias("real_impl")));
void __under_impl(void) __attribute__((alias("real_impl")));

/* three globals: the last in alphabetical order wins (zeta) */
NOINLINE void alpha_zeta(void) { sink += 2; }
void zeta(void) __attribute__((alias("alpha_zeta")));
void alpha(void) __attribute__((alias("alpha_zeta")));

/* weak beats local */
static NOINLINE void loc_impl(void) { sink += 3; }
void weak_pub(void) __attribute__((weak, alias("loc_impl")));

static NOINLINE int static_fn(int x) { return x * 7 + sink; }

int main(int argc, char **argv)
{
	printf("%d\n", sym_marker(argc) + static_fn(argc));
	puts(argv[0]);
	sink += (int)strlen(argv[0]);
	real_impl();
	alias_weak();
	zeta();
	weak_pub();
	return sink == 12345 ? EXIT_FAILURE : 0;
}
