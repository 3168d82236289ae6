/* SPDX-License-Identifier: MIT
 *
 * sym_capstone.h — the disassembler (capstone), loaded on first use.
 *
 * Only `annotate --disasm`, the hot-instruction view, the jump and memory-
 * operand scans need capstone, but linked into `tally` it was loaded by
 * every command: 77,000 relocations of its architecture tables and the
 * page faults they make, about 7 ms of CPU at each start of `tally record`
 * here (a program that only links it: 2.5 -> 10 ms, `perf stat -r 30`).
 * These wrappers open the library we were built against (its SONAME) the
 * first time one is called, and resolve its functions then; if it cannot
 * be loaded, sym_cs_open fails with CS_ERR_MEM and says why on stderr
 * once, and the callers go on without disassembly as they do when capstone
 * refuses.  Thread-safe (the first call is serialized).
 */
#ifndef TALLY_SYM_CAPSTONE_H
#define TALLY_SYM_CAPSTONE_H

#include <capstone/capstone.h>

cs_err sym_cs_open(cs_arch arch, cs_mode mode, csh *handle);
cs_err sym_cs_close(csh *handle);
cs_err sym_cs_option(csh handle, cs_opt_type type, size_t value);
size_t sym_cs_disasm(csh handle, const uint8_t *code, size_t code_size, uint64_t address, size_t count,
		     cs_insn **insn);
void sym_cs_free(cs_insn *insn, size_t count);
bool sym_cs_insn_group(csh handle, const cs_insn *insn, unsigned int group_id);
const char *sym_cs_reg_name(csh handle, unsigned int reg_id);
cs_err sym_cs_regs_access(csh handle, const cs_insn *insn, cs_regs regs_read, uint8_t *regs_read_count,
			  cs_regs regs_write, uint8_t *regs_write_count);

#endif
