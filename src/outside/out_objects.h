/* SPDX-License-Identifier: MIT
 *
 * out_objects.h — a process's executable mappings as the outside mode sees
 * them (from its PERF_RECORD_MMAP2 records), and each object's bytes loaded
 * into tally, so that the collector's CFI unwinder (collector/col_unwind.c)
 * reads its .eh_frame_hdr and .eh_frame, and its code, where they are here
 * (col_object.mem_delta) while addresses stay the target's.
 *
 * Files are loaded once and shared by every process that maps them (a fork
 * child's objects are its parent's).  The vDSO is tally's own: the same
 * kernel gives every process the same one.  Called from `tally record`'s
 * one thread.
 */
#ifndef TALLY_OUT_OBJECTS_H
#define TALLY_OUT_OBJECTS_H

#include <stdint.h>

#include "collector/col_objset.h"
#include "format/exp_records.h"

/* An object's file, laid out by virtual address as the loader maps it. */
struct out_file {
	char *path;
	uint64_t dev, ino;
	uint8_t *image;            /* virtual address lo_vaddr is at image[0] */
	uint64_t lo_vaddr, size;
	int mem_owned;             /* image was allocated (not the vDSO) */
	uint64_t eh_hdr_vaddr;     /* 0: no usable .eh_frame_hdr */
	uint64_t ro_lo_vaddr, ro_hi_vaddr;   /* the PT_LOAD holding .eh_frame */
	uint64_t fde_count;
	uint8_t build_id[EXP_BUILD_ID_MAX];
	uint8_t build_id_len;
	int refs;
};

/* One executable mapping of a process. */
struct out_map {
	uint64_t start, end, bias;
	uint32_t flags;            /* EXP_MAP_MAIN, EXP_MAP_VDSO */
	struct out_file *file;     /* NULL: its file could not be read (no CFI) */
	char *path;
};

struct out_objects {
	struct out_map *maps;
	uint32_t n, cap;
	const struct col_object_set *set;   /* for the unwinder; rebuilt on change */
	int dirty;
	int have_main;
};

/* Add a mapping of `path` at [start, start+len) from file offset `pgoff`
 * (an MMAP2 record's).  The first file mapping of a process image is its
 * executable (EXP_MAP_MAIN).  Returns the new map (for its MAP record), or
 * NULL if it replaces nothing new (the same mapping again) or memory ran
 * out. */
const struct out_map *out_objects_add(struct out_objects *o, const char *path, uint64_t start,
				      uint64_t len, uint64_t pgoff, uint64_t dev, uint64_t ino);

/* A fork child's objects: a copy of its parent's (files shared). */
int out_objects_copy(struct out_objects *dst, const struct out_objects *src);

/* The snapshot for the unwinder (col_objects_publish it before walking). */
const struct col_object_set *out_objects_set(struct out_objects *o);

void out_objects_free(struct out_objects *o);

#endif
