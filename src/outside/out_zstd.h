/* SPDX-License-Identifier: MIT
 *
 * out_zstd.h — zstd decompression for the outside mode's ELF readers
 * (a .debug_frame compressed ELFCOMPRESS_ZSTD: `ld
 * --compress-debug-sections=zstd`, `objcopy`, clang's `-gz=zstd`).
 */
#ifndef TALLY_OUT_ZSTD_H
#define TALLY_OUT_ZSTD_H

#include <stdbool.h>
#include <stdint.h>

/* Decompress the zstd frame in[0..in_len) into out[0..size), which it must
 * fill exactly.  False when it does not, when the data is not zstd, or
 * when libzstd (libzstd.so.1, loaded at the first call) is not installed:
 * the caller then reads the object as if it had no such section, and the
 * first call has said so on stderr (one line for the run).
 * Thread-safe. */
bool out_zstd_decompress(uint8_t *out, uint64_t size, const uint8_t *in, uint64_t in_len);

#endif
