/* SPDX-License-Identifier: MIT
 *
 * flip.h — one corrupt byte in a real experiment, and what it may cost.
 * Shared by the libFuzzer target fuzz_flip.c (`make fuzz`) and the unit
 * test tests/unit/test_corrupt.c (`make check`), which include flip.c.
 *
 * flip_setup copies an experiment into a scratch directory and lists its
 * records; flip_check changes one byte of one file, loads the experiment
 * (and, when asked, builds its model and reports), and checks the rule of
 * docs/experiment-format.md: every other file reads as before, the damaged
 * file loses at most the records of the block holding the byte (the whole
 * file, for a byte of its header), and a loss is counted (damage, or records
 * of an unknown type); then it restores the byte.
 */
#ifndef TALLY_FUZZ_FLIP
#define TALLY_FUZZ_FLIP

#include <stddef.h>
#include <stdint.h>

/* One record found by walking a file (MIRROR records too). */
struct flip_rec {
	int file;                  /* index in exp_dir_file() */
	uint32_t type, len;
	size_t offset;
};

struct flip_exp {
	char dir[64];              /* the scratch copy */
	uint8_t *data[16];         /* each file's original bytes (NULL: absent) */
	size_t size[16];
	uint32_t kind[16];         /* each file's kind (0: not a record file) */
	size_t block[16];          /* and its block size */
	struct flip_rec *recs;
	size_t nrecs, cap;
	uint64_t base[64];         /* records read by file kind, undamaged */
};

/* Copy the experiment in `from` to a new scratch directory and load it
 * once.  0, or -1 with `why` (it does not load undamaged). */
int flip_setup(struct flip_exp *x, const char *from, char *why, size_t len);

/* XOR byte `offset` of file `file` with `mask`, check, restore.  `build`:
 * also build the model and the reports.  0 if the rule held, else 1 with
 * `why`. */
int flip_check(struct flip_exp *x, int file, size_t offset, uint8_t mask, int build, char *why,
	       size_t len);

/* Remove the scratch copy and free. */
void flip_free(struct flip_exp *x);

#endif
