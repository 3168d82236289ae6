/* SPDX-License-Identifier: MIT
 *
 * exp_compact.h — rewriting a finished record file densely.
 *
 * While a process runs, its threads claim blocks, and runs of blocks, ahead
 * of need: a thread that ends, or writes little, leaves zeros behind, and an
 * arc table is mostly empty slots.  Once nobody writes a file any more
 * (`tally record` checks that its process has ended), exp_file_compact
 * rewrites it with the same records in the same order, packed block after
 * block under the format's rules (exp_records.h), without MIRROR records,
 * arc tables cut down to the smallest power of two that holds their used
 * slots, sample runs to the bytes they used, and nothing after the last
 * record.  Analyzer side only: it
 * allocates, and is not async-signal-safe.
 */
#ifndef TALLY_EXP_COMPACT_H
#define TALLY_EXP_COMPACT_H

#include <stddef.h>

#include "format/exp_read.h"

/* A file over this size only loses the zeros after its last record:
 * rewriting it would cost more than it saves (arc files are always
 * rewritten: their tables are mostly empty). */
#define EXP_COMPACT_REWRITE_MAX (16u << 20)

/* A file of at most this size is compacted over itself (the dense image
 * made in memory, then written at offset 0 and the file cut to it): the
 * files of short processes, where making a new file and renaming it over
 * the old cost more than the process itself. */
#define EXP_COMPACT_IN_PLACE_MAX (1u << 20)

/* A file of one block (or only its header) is left as it is: cutting it
 * frees at most one block (16 KiB; most short processes' files are one:
 * a /bin/true's threads.dat holds ~300 bytes of it), and freeing a block
 * that was fallocated costs the file system far more than the process
 * spent: 0.2 ms of `tally record`'s CPU per /bin/true of a shell loop and
 * about 3 ms of its wall time (a synchronous discard each, on ext4 mounted
 * with `discard`).  docs/decisions.md. */

/* Compact the record file at `path` in place: a small one over itself (a
 * reader meanwhile may see a file being rewritten: `tally record` compacts
 * after its processes ended, before it returns); a larger one is written
 * beside it (PATH.compact) and renamed over it, so a reader meanwhile sees
 * one or the other.  Returns 0 when done, 1 when the file was left as it is
 * because it does not parse (a report will say why), or a negative errno
 * with `err` (the original is then unchanged). */
int exp_file_compact(const char *path, struct exp_error *err);

#endif
