/* SPDX-License-Identifier: MIT
 *
 * sym_capstone.c — capstone, opened on first use (see sym_capstone.h).
 *
 * The library is the one `tally` was built against: SYM_CAPSTONE_SONAME,
 * the SONAME the Makefile read from it (another major version lays out
 * cs_insn differently).  Its functions are resolved together, once, under
 * a pthread_once; until then no capstone page is mapped.  Called from the
 * analyzer (symbols, report), any thread.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "symbols/sym_capstone.h"

#ifndef SYM_CAPSTONE_SONAME
#define SYM_CAPSTONE_SONAME "libcapstone.so"
#endif

static struct {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*close)(csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	size_t (*disasm)(csh, const uint8_t *, size_t, uint64_t, size_t, cs_insn **);
	void (*free)(cs_insn *, size_t);
	bool (*insn_group)(csh, const cs_insn *, unsigned int);
	const char *(*reg_name)(csh, unsigned int);
	cs_err (*regs_access)(csh, const cs_insn *, cs_regs, uint8_t *, cs_regs, uint8_t *);
} cs;                         /* all set, or `open` NULL: not loaded */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Open the library and resolve every function, or none; the first failure
 * is one line on stderr (the views then go on without disassembly). */
static void load(void)
{
	void *h = dlopen(SYM_CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "tally: %s (no disassembly)\n", dlerror());
		return;
	}
	*(void **)&cs.close = dlsym(h, "cs_close");
	*(void **)&cs.option = dlsym(h, "cs_option");
	*(void **)&cs.disasm = dlsym(h, "cs_disasm");
	*(void **)&cs.free = dlsym(h, "cs_free");
	*(void **)&cs.insn_group = dlsym(h, "cs_insn_group");
	*(void **)&cs.reg_name = dlsym(h, "cs_reg_name");
	*(void **)&cs.regs_access = dlsym(h, "cs_regs_access");
	void *open = dlsym(h, "cs_open");
	if (!open || !cs.close || !cs.option || !cs.disasm || !cs.free || !cs.insn_group || !cs.reg_name ||
	    !cs.regs_access) {
		fprintf(stderr, "tally: %s: a capstone function is missing (no disassembly)\n",
			SYM_CAPSTONE_SONAME);
		return;
	}
	*(void **)&cs.open = open;
}

cs_err sym_cs_open(cs_arch arch, cs_mode mode, csh *handle)
{
	pthread_once(&once, load);
	return cs.open ? cs.open(arch, mode, handle) : CS_ERR_MEM;
}

/* The others are only called with a handle sym_cs_open gave: loaded. */
cs_err sym_cs_close(csh *handle)
{
	return cs.close ? cs.close(handle) : CS_ERR_CSH;
}

cs_err sym_cs_option(csh handle, cs_opt_type type, size_t value)
{
	return cs.option ? cs.option(handle, type, value) : CS_ERR_CSH;
}

size_t sym_cs_disasm(csh handle, const uint8_t *code, size_t code_size, uint64_t address, size_t count,
		     cs_insn **insn)
{
	return cs.disasm ? cs.disasm(handle, code, code_size, address, count, insn) : 0;
}

void sym_cs_free(cs_insn *insn, size_t count)
{
	if (cs.free)
		cs.free(insn, count);
}

bool sym_cs_insn_group(csh handle, const cs_insn *insn, unsigned int group_id)
{
	return cs.insn_group && cs.insn_group(handle, insn, group_id);
}

const char *sym_cs_reg_name(csh handle, unsigned int reg_id)
{
	return cs.reg_name ? cs.reg_name(handle, reg_id) : NULL;
}

cs_err sym_cs_regs_access(csh handle, const cs_insn *insn, cs_regs regs_read, uint8_t *regs_read_count,
			  cs_regs regs_write, uint8_t *regs_write_count)
{
	return cs.regs_access ? cs.regs_access(handle, insn, regs_read, regs_read_count, regs_write,
					       regs_write_count)
			      : CS_ERR_CSH;
}
