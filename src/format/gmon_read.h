/* SPDX-License-Identifier: MIT
 *
 * gmon_read.h — glibc's gmon.out, the file a program built with -pg writes
 * when it exits (the gprof paper's "condensed" arc table and histogram), read
 * bounds-checked for `tally gprof`.  Several files are summed into one
 * profile, as `gprof -s` does.
 *
 * Layout (x86-64, little-endian; addresses are 8 bytes):
 *
 *   header, 20 bytes
 *     off size field
 *       0    4 cookie      "gmon"
 *       4    4 version     1 (0 is accepted, as GNU gprof does)
 *       8   12 spare       0
 *   then records until the end of the file, each a 1-byte tag and a body:
 *
 *   GMON_TAG_TIME_HIST (0): the pc histogram, 40 + 2 * nbins bytes
 *       0    8 low_pc      first address covered
 *       8    8 high_pc     one past the last
 *      16    4 hist_size   number of bins; bin i covers
 *                          [low + i*(high-low)/n, low + (i+1)*(high-low)/n)
 *      20    4 prof_rate   samples per second (Hz)
 *      24   15 dimen       unit of the samples' time, "seconds"
 *      39    1 dimen_abbrev 's'
 *      40 2*n  bins        u16 sample counts
 *   GMON_TAG_CG_ARC (1): one arc of the call graph, 20 bytes
 *       0    8 from_pc     call site: the return address in the caller,
 *                          rounded down to 16 bytes by glibc
 *       8    8 self_pc     the callee: the return address of its mcount call
 *      16    4 count       traversals
 *   GMON_TAG_BB_COUNT (2): basic-block counts (gcc -a), 4 + 16 * n bytes
 *       0    4 ncounts
 *       4 16*n (addr, count) pairs of 8-byte words
 *
 * glibc writes addresses relative to the executable's load address, i.e.
 * link-time addresses for a PIE as for a fixed-address executable (checked
 * here: a PIE's histogram starts at 0, a -no-pie one at 0x400000).
 * Not thread-safe; the analyzer is single-threaded.
 */
#ifndef TALLY_GMON_READ_H
#define TALLY_GMON_READ_H

#include <stddef.h>
#include <stdint.h>

#define GMON_MAGIC "gmon"
#define GMON_VERSION 1
#define GMON_HEADER_BYTES 20
#define GMON_TAG_TIME_HIST 0
#define GMON_TAG_CG_ARC 1
#define GMON_TAG_BB_COUNT 2
#define GMON_HIST_HEADER_BYTES 40
#define GMON_ARC_BYTES 20
#define GMON_BB_PAIR_BYTES 16

/* One address range's histogram, summed over every file that had it. */
struct gmon_hist {
	uint64_t low_pc, high_pc;  /* link-time address range */
	uint32_t nbins;
	uint32_t rate_hz;          /* prof_rate: samples per second */
	char dimen[16];            /* NUL-terminated, "seconds" */
	char dimen_abbrev;         /* 's' */
	uint64_t *bins;            /* nbins sample counts */
};

/* An arc record, in file order (files in the order read); the same arc may
 * appear several times (once per file). */
struct gmon_arc {
	uint64_t from_pc;          /* return address in the caller */
	uint64_t self_pc;          /* inside the callee */
	uint64_t count;            /* traversals */
};

struct gmon_bb {
	uint64_t addr, count;      /* basic block and its executions */
};

struct gmon_profile {
	struct gmon_hist *hists;
	size_t nhists;
	struct gmon_arc *arcs;
	size_t narcs;
	struct gmon_bb *bbs;
	size_t nbbs;
	size_t nfiles;             /* files added */
	uint64_t samples;          /* sum of every bin */
	char first[256];           /* name of the first file (for messages) */
};

/* Add the gmon.out at `path` to `p` (zero-initialized before the first
 * call).  Returns 0, or -1 with a one-line message in `err` naming the file,
 * the offset and the cause (corrupt or truncated record, a histogram that
 * disagrees with the ones already read).  On error `p` may hold part of the
 * file: free it. */
int gmon_profile_read(struct gmon_profile *p, const char *path, char *err, size_t errlen);

/* The same for the `len` bytes at `data`, named `name` in messages (the
 * reader behind gmon_profile_read; fuzz tests call it directly). */
int gmon_profile_add(struct gmon_profile *p, const char *name, const uint8_t *data, size_t len,
		     char *err, size_t errlen);

void gmon_profile_free(struct gmon_profile *p);

#endif
