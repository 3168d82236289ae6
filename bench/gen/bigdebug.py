#!/usr/bin/env python3
"""bigdebug.py — generates the C sources of a program with a lot of debug
information, for bench section 96-annotate: NCU files, each with NSTRUCT
structure types (24 members each) and a global of each type (so that their
DWARF is emitted) and NFUNC twenty-line functions; main.c calls hot_target,
the function the benchmark annotates.

usage: bigdebug.py OUTDIR NCU NSTRUCT NFUNC
"""
import os, sys
out, ncu, nstruct, nfunc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
os.makedirs(out, exist_ok=True)
for c in range(ncu):
    with open(f"{out}/cu{c}.c", "w") as f:
        f.write("#include <stddef.h>\n")
        for s in range(nstruct):
            f.write(f"struct t{c}_{s} {{ " + " ".join(f"long m{s % 7}_{k};" for k in range(24)) + " };\n")
            f.write(f"struct t{c}_{s} g{c}_{s};\n")
        for fn in range(nfunc):
            f.write(f"long f{c}_{fn}(long x)\n{{\n")
            for k in range(20):
                f.write(f"\tx = x * {k + 3} + g{c}_{fn % nstruct}.m{(fn % nstruct) % 7}_{k};\n")
            f.write("\treturn x;\n}\n")
with open(f"{out}/main.c", "w") as f:
    f.write("""#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void hot_target(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1;
		__asm__ volatile("" : "+r"(x));
	}
	sink = x;
}
int main(int argc, char **argv)
{
	hot_target(argc > 1 ? strtoul(argv[1], 0, 10) : 100000000);
	return 0;
}
""")
