/* SPDX-License-Identifier: MIT
 *
 * elf_go.h — is an executable a Go program whose runtime sets its signal
 * handlers by its own system calls (no cgo)?  Such a program replaces the
 * preloaded collector's handler past its interposers, and a clock signal
 * then kills it (Go's "SIGTRAP: trace trap"): `tally record` samples it from
 * outside instead, as a static program (docs/static.md).
 */
#ifndef TALLY_ELF_GO_H
#define TALLY_ELF_GO_H

#include <stdbool.h>

/* The ELF64 file open as `fd` has a Go build-id note and a dynamic string
 * table naming none of cgo's symbols (`_cgo_`: `x_cgo_init` where the
 * external linker exports them all, `_cgo_panic` where Go's own linker
 * exports two; with cgo, Go's runtime sets its handlers through libc's
 * sigaction, which the collector interposes).
 * False for anything else, or when the file cannot be read. */
bool elf_go_without_cgo(int fd);

/* Why such a program is sampled from outside, for the log's collector.mode
 * line and tally's message (`tally record` of a new one, and -p). */
#define ELF_GO_OUTSIDE_WHY \
	"a Go program without cgo, whose runtime sets its signal handlers by its own system calls"

#endif
