/* SPDX-License-Identifier: MIT
 *
 * sym_lib.c — test shared library for tests/unit/test_symbols.c: static
 * functions between global ones, so that a `strip --strip-all` copy (only
 * .dynsym left) has <static>@0x... regions.  Built with -O2 -fPIC -shared.
 */
#define NOINLINE __attribute__((noipa, used))

volatile int lib_sink;

int g1(int x) { return x + lib_sink; }

static NOINLINE int s1(int x) { lib_sink ^= x; return x * 5 + lib_sink; }
static NOINLINE int s2(int x) { lib_sink += x; return x * 9 - lib_sink; }

int g2(int x) { return s1(x) + s2(x + 1); }

static NOINLINE int s3(int x) { lib_sink -= x; return (x * 11) ^ lib_sink; }

int g3(int x) { return s3(x) + g1(x); }
