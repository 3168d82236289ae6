/* SPDX-License-Identifier: MIT
 *
 * sym.h — from addresses to names: load objects over time, ELF symbols,
 * DWARF lines, demangling and the artificial names of the analyzer.
 *
 * Two layers:
 *  - struct sym_object: one ELF file (executable, shared library, archived
 *    vDSO), opened lazily and cached by path + build-id.  Maps a link-time
 *    virtual address to a function and a source line.
 *  - struct sym_space: one process's address space over time, built from the
 *    experiment's MAP / UNMAP records.  Maps (pc, time) to a mapping, so a
 *    library unloaded and another loaded at the same address are told apart.
 *
 * Naming rules (the Sun analyzer's artificial names):
 *  - one name per address: among aliases the one chosen is the global
 *    (strong) symbol over weak over local, then the one without leading
 *    underscores, then the last in alphabetical order; the others are kept
 *    in `aliases`;
 *  - C++ names are demangled with their argument lists;
 *  - PLT entries are named `callee@plt`;
 *  - an address inside an executable section that no symbol covers is
 *    `<static>@0xOFFSET (object)`, OFFSET being the file offset of the start
 *    of the uncovered region;
 *  - the analyzer names pcs outside every mapping `<Unknown>` (sym_space).
 * Not thread-safe; the analyzer is single-threaded.
 */
#ifndef TALLY_SYM_H
#define TALLY_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym_object;
struct sym_space;

#define SYM_FUNC_PLT 0x1      /* a PLT stub (name ends in @plt) */
#define SYM_FUNC_STATIC 0x2   /* artificial <static>@0x... region */
#define SYM_FUNC_LOCAL 0x4    /* a local (file-static) symbol */
#define SYM_FUNC_DYNAMIC 0x8  /* dynamically generated code (sym_object_dynamic) */

struct sym_func {
	const char *name;         /* display name: demangled, or artificial */
	const char *link_name;    /* symbol as in the ELF file (mangled) */
	const char *aliases;      /* other names at this address, ", "-separated; NULL if none */
	uint64_t start;           /* link-time virtual address */
	uint64_t size;            /* bytes (>= 1) */
	uint32_t flags;           /* SYM_FUNC_* */
	uint32_t id;              /* dense index within its object, stable while open */
};

/* Open (or find in the cache) the object at `path`.  If `build_id` is given
 * and the file's differs, the file is still used and *mismatch is set (the
 * caller warns: the binary changed since the recording).  Looks for DWARF and a
 * full symbol table also in the separate debug file (build-id path under
 * /usr/lib/debug, .gnu_debuglink).  Returns NULL with `err` set if the file
 * cannot be read as ELF. */
struct sym_object *sym_object_get(const char *path, const uint8_t *build_id,
				  size_t build_id_len, bool *mismatch,
				  char *err, size_t errlen);

/* Function containing link-time address `vaddr`, or NULL if `vaddr` is in no
 * executable section.  The pointer lives as long as the object. */
const struct sym_func *sym_object_lookup(struct sym_object *o, uint64_t vaddr);

/* Source position of `vaddr` from the DWARF line table: file path and line.
 * Returns false when there is no line information. */
bool sym_object_line(struct sym_object *o, uint64_t vaddr, const char **file,
		     int *line);

/* A symbol of GNU gprof's table (sym_gprof.c). */
struct sym_gprof_sym {
	uint64_t addr;            /* link-time address */
	const char *name;         /* as in the file (mangled); lives with the object */
	bool is_static;           /* 't', else 'T' */
	bool is_func;             /* STT_FUNC */
	uint32_t order;           /* index in .symtab */
};

/* The symbols GNU gprof would number for object o, sorted by address, one
 * per address, into *out (malloc'd, the caller frees it).  Their count (0
 * when the file has no .symtab), or -1 if out of memory. */
long sym_object_gprof_symbols(struct sym_object *o, struct sym_gprof_sym **out);

/* The function whose symbol (as in the file, mangled) is `link_name`, or
 * NULL.  A linear search: for the analyzer's occasional lookups by name
 * (the parent of an outlined part). */
const struct sym_func *sym_object_find(struct sym_object *o, const char *link_name);

/* One inlined call (DW_TAG_inlined_subroutine) at an address. */
struct sym_inline {
	const char *name;         /* the inlined function: demangled linkage name, as
	                             a symbol's display name, or DW_AT_name (C) */
	const char *link_name;    /* its linkage name (mangled), or NULL */
	const char *call_file;    /* where its caller calls it (DW_AT_call_file) ... */
	int call_line;            /* ... and line; NULL / 0 if not said */
};

/* The chain of inlined calls at link-time address `vaddr`, outermost first
 * (the function the host symbol's code inlined first), at most `max`: the
 * outermost are kept when there are more.  Returns how many; 0 without
 * DWARF or inlines.  The strings live as long as the object. */
size_t sym_object_inlines(struct sym_object *o, uint64_t vaddr, struct sym_inline *out, size_t max);

/* The compilation directory (DW_AT_comp_dir) of the code at `vaddr`, where
 * its relative source paths start; NULL without DWARF. */
const char *sym_object_comp_dir(struct sym_object *o, uint64_t vaddr);

/* The function a compiler-made body at `vaddr` was taken from, by DWARF:
 * the last function declared before the body in the same source file;
 * NULL without DWARF. */
const struct sym_func *sym_object_enclosing(struct sym_object *o, uint64_t vaddr);

/* Every function of the object, in address order (for annotate and export). */
size_t sym_object_functions(struct sym_object *o, const struct sym_func **funcs);

/* Short name of the object (basename of its path). */
const char *sym_object_name(const struct sym_object *o);
/* The object's build-id (the bytes of its note) into *id; its length, 0
 * when the file has none. */
size_t sym_object_build_id(const struct sym_object *o, const uint8_t **id);
const char *sym_object_path(const struct sym_object *o);

/* Read up to `len` bytes of the object's file image at link-time address
 * `vaddr` (for disassembly).  Returns the number of bytes copied. */
size_t sym_object_read(struct sym_object *o, uint64_t vaddr, void *buf, size_t len);

/* The functions `f` jumps to (its tail calls: direct jumps, conditional
 * or not, from its code to another function's first byte; a PLT stub
 * counts), at most `max`, each once.  0 if its code cannot be read
 * (sym_jumps.c). */
size_t sym_object_tail_calls(struct sym_object *o, const struct sym_func *f,
			     const struct sym_func **out, size_t max);

/* The object of one function of dynamically generated code, made from its
 * copied instructions (the experiment's DYN_FUNC record) and cached under
 * `key` (sym_object_get(key) finds it again); `display` is its object name
 * ("[dynamic]", "perf-1234.map").  Its line table, if any, is `nlines`
 * { offset, line } pairs; lines are reported in the file `display`.  NULL
 * if out of memory. */
struct sym_object *sym_object_dynamic(const char *key, const char *display, const char *name,
				      uint64_t addr, uint64_t size, const uint8_t *code,
				      size_t code_len, const uint32_t (*lines)[2], uint32_t nlines);

/* The object of the kernel's functions an experiment copied (the
 * KERNEL_SYM records of kernel.dat): `n` functions in address order, at
 * their own addresses; cached under `key`, named `display` ("[kernel]").
 * NULL if out of memory (sym_kernel.c). */
struct sym_object *sym_object_kernel(const char *key, const char *display, size_t n,
				     const uint64_t *addrs, const uint64_t *sizes,
				     const char *const *names);

/* Close every cached object. */
void sym_objects_free(void);

/* Demangle a C++/Rust symbol with its argument list; returns a string owned by
 * a cache that lives until sym_objects_free, or `name` itself if it is not
 * mangled. */
const char *sym_demangle(const char *name);

/* ---- data objects (sym_data.c; dataspace profiling) ------------------ */

struct sym_data;

struct sym_data_sym {
	const char *name;         /* demangled */
	uint64_t start, size;     /* link-time virtual address, bytes */
	bool local;               /* a file-static variable */
};

/* The data objects of the ELF file at `path` (cached; NULL if it cannot be
 * read).  Lives until sym_data_free_all. */
const struct sym_data *sym_data_get(const char *path);
/* Is link-time address `vaddr` in one of the file's loadable segments? */
bool sym_data_contains(const struct sym_data *d, uint64_t vaddr);
/* The data symbol holding `vaddr`, or NULL. */
const struct sym_data_sym *sym_data_lookup(const struct sym_data *d, uint64_t vaddr);
void sym_data_free_all(void);

/* ---- the memory operand at a sampled pc (sym_memop.c) ----------------- */

enum sym_memop_status {
	SYM_MEMOP_OK,             /* an address from base, index, scale, disp, seg */
	SYM_MEMOP_NO_CODE,        /* the object's code could not be read */
	SYM_MEMOP_NOT_DECODED,    /* no instruction decoded starts at the pc */
	SYM_MEMOP_NONE,           /* no memory operand, none before it in its block */
	SYM_MEMOP_STACK_OP,       /* push, pop, call, ret, leave: the stack */
	SYM_MEMOP_CLOBBERED,      /* backtracked, but its address registers changed since */
	SYM_MEMOP_VECTOR_INDEX,   /* an address register the sample does not hold */
};
struct sym_memop {
	enum sym_memop_status status;
	bool backtracked;         /* the operand is a preceding instruction's */
	bool store;               /* it writes memory */
	char seg;                 /* 'f': %fs, 'g': %gs, 0: none */
	int8_t base, index;       /* exp_data_regs register indexes; -1 none (16: rip) */
	uint8_t scale;
	uint8_t size;             /* bytes accessed */
	int64_t disp;
	uint64_t insn_vaddr;      /* link-time address of the instruction with the operand */
	uint8_t insn_size;
};
/* The memory operand of the instruction at link-time address `vaddr` of
 * object o, or of the nearest memory instruction before it in its basic
 * block (out->backtracked), into *out (docs/dataspace.md). */
void sym_object_memop(struct sym_object *o, uint64_t vaddr, struct sym_memop *out);

/* ---- variables' types (sym_dtype.c; data objects) ---------------------- */

struct sym_dfield {
	const char *name;         /* the member's name, "<anonymous>" */
	uint64_t offset, size;    /* bytes, in its structure */
	bool bitfield;
};
struct sym_dtype {              /* a structure, union or class type */
	const char *name;         /* "struct cell" */
	uint64_t size;            /* bytes */
	uint64_t die;             /* its DIE's offset: the identity */
	uint32_t nfields;
	struct sym_dfield fields[]; /* in declaration order */
};
struct sym_dmember {
	const struct sym_dtype *type; /* the innermost structure holding the byte, or NULL */
	int field;                /* its member holding the byte; -1: padding */
	bool scalar;              /* the variable's own type is neither a structure nor an array */
};

/* Which member of the variable whose DWARF address is `var_addr` (link-time)
 * byte `offset` of it belongs to, into *out (types live until
 * sym_dtype_free_all).  0, or -1 when the object at `path` has no DWARF or
 * no variable at that address. */
int sym_dtype_resolve(const char *path, uint64_t var_addr, uint64_t offset, struct sym_dmember *out);
/* The structure type that a pointer held in register `reg` (DWARF
 * numbering: exp_data_regs order) points to at link-time pc `pc` of object
 * o: a local variable or parameter of a scope there whose location at pc
 * is that register, of type pointer to a structure.  Its DIE offset, or 0
 * (no DWARF, no such variable: optimized away, or a void pointer). */
uint64_t sym_dtype_pointee_at(const struct sym_object *o, uint64_t pc, int reg);
/* The member of that type (DIE offset `die` in o) holding byte `offset`
 * (modulo the type's size: an array of them) into *out; 0, or -1. */
int sym_dtype_member_at(const struct sym_object *o, uint64_t die, uint64_t offset, struct sym_dmember *out);
void sym_dtype_free_all(void);

/* ---- address space over time ---------------------------------------- */

struct sym_mapping {
	uint64_t start, end;      /* runtime addresses of the executable segment */
	uint64_t bias;            /* runtime address - link-time address */
	uint64_t map_ns;          /* mapped no later than this */
	uint64_t unmap_ns;        /* UINT64_MAX while mapped */
	const char *path;
	uint8_t build_id[20];
	uint8_t build_id_len;
	uint32_t flags;           /* EXP_MAP_* */
	struct sym_object *obj;   /* NULL until first needed, or if unreadable */
	bool obj_tried;
	uint64_t tag;             /* SYM_MAP_CODE: the caller's (sym_space_map_code) */
};
#define SYM_MAP_CODE 0x80000000u  /* generated code, no object: `path` is its name */

struct sym_space *sym_space_new(void);
void sym_space_free(struct sym_space *s);

void sym_space_map(struct sym_space *s, uint64_t time_ns, uint64_t start,
		   uint64_t end, uint64_t bias, const char *path,
		   const uint8_t *build_id, size_t build_id_len, uint32_t flags);
void sym_space_unmap(struct sym_space *s, uint64_t time_ns, uint64_t start);
/* A mapping of an object already made (dynamic code: sym_object_dynamic),
 * at link-time addresses (bias 0). */
void sym_space_map_object(struct sym_space *s, uint64_t time_ns, uint64_t start, uint64_t end,
			  struct sym_object *obj);
/* Record code generated at run time at [start, end) no later than time_ns:
 * a mapping with no object (SYM_MAP_CODE), called `name`, carrying `tag`. */
void sym_space_map_code(struct sym_space *s, uint64_t time_ns, uint64_t start, uint64_t end,
			const char *name, uint64_t tag);

/* The experiment's archive/ folder: an object whose path cannot be read, or
 * whose build-id differs from the recorded one, is read from
 * DIR/<build-id in lowercase hex> (and the vDSO, mapped as `[vdso]`, also from
 * DIR/vdso.so).  Its name and path stay those of the mapping.  NULL turns it
 * off; call before the first sym_space_find. */
void sym_space_set_archive(struct sym_space *s, const char *dir);

/* The mapping holding `pc` at `time_ns`: the latest-mapped one alive then;
 * failing that, the one holding `pc` closest in time (a sample racing a
 * dlopen).  NULL if no mapping ever held `pc` (the pc is <Unknown>).
 * time_ns == UINT64_MAX means "any time, latest first" (arcs have no time).
 * Opens the mapping's object on first use; a file that cannot be read is
 * reported once through the warning callback. */
struct sym_mapping *sym_space_find(struct sym_space *s, uint64_t pc, uint64_t time_ns);

/* Called once per object that cannot be opened or does not match its
 * build-id; default prints "tally: warning: ..." to stderr. */
void sym_set_warning_handler(void (*fn)(const char *msg));

#endif
