/* SPDX-License-Identifier: MIT
 *
 * exp_header.h — a record file's header (struct exp_file_header,
 * exp_records.h) filled the one way: every writer of a header, the
 * collector's (its data files, counters.dat, processes.dat and a process's
 * slot in it), tally record's kernel.dat and the outside mode's
 * counters.dat, calls exp_file_header_init, so that a field added to the
 * header is set in one place.  Inline and libc-free: the collector calls
 * it in signal handlers and aside.
 */
#ifndef TALLY_EXP_HEADER_H
#define TALLY_EXP_HEADER_H

#include <stdint.h>

#include "format/exp_records.h"

/* *h made the header of a file of `kind` (enum exp_file_kind, EXP_PROC_KIND,
 * EXP_SLOTS_KIND) in blocks of `block_bytes`, written by process `pid` (0:
 * none, as processes.dat's header, which any process may write) and
 * created at mono_ns and real_ns (0: not said); the rest zero.  Sigsafe. */
static inline void exp_file_header_init(struct exp_file_header *h, uint32_t kind, uint32_t block_bytes,
					uint32_t pid, uint64_t mono_ns, uint64_t real_ns)
{
	unsigned char *p = (unsigned char *)h;

	for (unsigned long i = 0; i < sizeof(*h); i++)
		p[i] = 0;
	for (int i = 0; i < 8; i++)
		h->magic[i] = EXP_MAGIC[i];
	h->version = EXP_FORMAT_VERSION;
	h->kind = kind;
	h->block_bytes = block_bytes;
	h->header_bytes = EXP_HEADER_BYTES;
	h->pid = pid;
	h->mono_ns = mono_ns;
	h->real_ns = real_ns;
}

#endif
