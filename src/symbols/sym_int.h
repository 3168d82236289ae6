/* SPDX-License-Identifier: MIT
 *
 * sym_int.h — private to src/symbols/: the layout of struct sym_object and
 * the functions the symbolizer's files call in each other.  Nothing outside
 * src/symbols/ includes this header; the public contract is sym.h.
 *
 * How an object is built (sym_object.c drives it, once per file):
 *   sym_elf_xsecs      executable sections of the file       (sym_elf.c)
 *   sym_debug_find     separate debug file, if needed         (sym_debuglink.c)
 *   sym_elf_symbols    function symbols of .symtab/.dynsym    (sym_elf.c)
 *   sym_go_symbols     a stripped Go binary's own table      (sym_gopclntab.c)
 *   sym_plt_symbols    synthesized name@plt entries           (sym_plt.c)
 *   sym_elf_fde_starts function starts of the unwind table   (sym_ehframe.c)
 *   sym_table_build    aliases, sizes, <static> regions, index (sym_table.c)
 * DWARF lines are opened on first use (sym_lines.c).
 */
#ifndef TALLY_SYM_INT_H
#define TALLY_SYM_INT_H

#include <gelf.h>
#include <stdarg.h>

#include "symbols/sym.h"

#define SYM_BUILD_ID_MAX 64    /* longest build-id note we keep, bytes */

/* ---- string arena (sym_arena.c) -------------------------------------- */

/* Strings that live as long as their object: a list of chunks. */
struct sym_arena {
	struct sym_arena_chunk *head;
};

const char *sym_arena_strdup(struct sym_arena *a, const char *s);
const char *sym_arena_printf(struct sym_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sym_arena_free(struct sym_arena *a);

/* ---- the object ------------------------------------------------------ */

/* One executable section (or, without section headers, one executable
 * PT_LOAD segment) of the file: the only places a function can live. */
struct sym_xsec {
	uint64_t addr;            /* link-time virtual address */
	uint64_t size;            /* bytes, > 0; addr + size does not wrap */
	uint64_t offset;          /* file offset of addr */
	const char *name;         /* section name, "" if unknown */
};

/* A function symbol before aliases are merged. */
struct sym_raw {
	uint64_t addr;            /* link-time virtual address */
	uint64_t size;            /* bytes; 0 = up to the next symbol */
	const char *name;         /* link name; lives as long as the object */
	uint32_t xsec;            /* index of its struct sym_xsec */
	uint8_t rank;             /* SYM_RANK_*: which name wins among aliases */
};

#define SYM_RANK_PLT 0        /* synthesized name@plt: any real symbol wins */
#define SYM_RANK_LOCAL 1
#define SYM_RANK_WEAK 2
#define SYM_RANK_GLOBAL 3

struct sym_rawvec {
	struct sym_raw *v;
	size_t n, cap;
};

/* A piece of the lookup index: [start, end) belongs to funcs[func]. */
struct sym_seg {
	uint64_t start, end;
	uint32_t func;
};

struct sym_lines;

struct sym_object {
	char *file;               /* the file actually read (cache key) */
	char *path;               /* the path it stands for (display) */
	const char *name;         /* basename of path */
	Elf *elf;                 /* the file; its fd is already closed */
	Elf *dbg_elf;             /* separate debug file, or NULL */
	char *dbg_file;           /* its path, or NULL */
	Elf *dwarf_elf;           /* the one with .debug_info, or NULL */
	const uint8_t *image;     /* elf_rawfile(elf) */
	size_t image_size;        /* bytes */
	uint8_t build_id[SYM_BUILD_ID_MAX];
	size_t build_id_len;      /* 0: the file has no build-id note */
	struct sym_xsec *xsecs;   /* sorted by addr, disjoint */
	size_t nxsecs;
	struct sym_func *funcs;   /* sorted by start; funcs[i].id == i */
	size_t nfuncs;
	uint64_t *fde_starts;     /* function starts from .eh_frame_hdr, sorted */
	size_t nfde_starts;       /* (only while the table is built) */
	struct sym_seg *segs;     /* sorted, disjoint: the lookup index */
	size_t nsegs;
	struct sym_lines *lines;  /* NULL until first sym_object_line */
	bool lines_tried;
	struct sym_arena arena;   /* PLT/static names, aliases lists */
	uint8_t *owned_image;     /* dynamic code: its copied bytes (image), owned */
	uint32_t (*dyn_lines)[2]; /* dynamic code: { offset, line } pairs, or NULL */
	uint32_t ndyn_lines;
	struct sym_object *next;  /* the cache list */
};

/* sym_object_get for a file that stands for another path: the archived
 * copy `file` of `path` (sym_space).  Names and sym_object_path use `path`;
 * the cache key is `file`. */
struct sym_object *sym_object_get_as(const char *file, const char *path,
				     const uint8_t *build_id,
				     size_t build_id_len, bool *mismatch,
				     char *err, size_t errlen);

/* The cached object read from `file`, or NULL (sym_object.c). */
struct sym_object *sym_object_find_cached(const char *file);

/* A new object made in memory, not read from a file (dynamic code, the
 * kernel): its file `key`, path and display name set; NULL out of memory.
 * Not yet cached (sym_object_cache_add once it is filled). */
struct sym_object *sym_object_made(const char *key, const char *path, const char *display);
/* Put a made object into the cache (sym_object.c). */
void sym_object_cache_add(struct sym_object *o);
/* Free an object not (yet) in the cache. */
void sym_object_release(struct sym_object *o);

/* ---- dynamic code (sym_dyn.c) ----------------------------------------- */

/* Line of `vaddr` in a dynamic function's own table; false if none. */
bool sym_dyn_line(const struct sym_object *o, uint64_t vaddr, const char **file, int *line);

/* ---- ELF (sym_elf.c) ------------------------------------------------- */

Elf *sym_elf_open(const char *file, char *err, size_t errlen);
int sym_elf_xsecs(Elf *elf, struct sym_xsec **xsecs, size_t *n,
		  char *err, size_t errlen);
Elf_Scn *sym_elf_section(Elf *elf, const char *name, GElf_Shdr *shdr);
Elf_Scn *sym_elf_section_type(Elf *elf, uint32_t type, GElf_Shdr *shdr);
size_t sym_elf_build_id(Elf *elf, uint8_t *out, size_t outlen);
long sym_elf_xsec_find(const struct sym_xsec *xs, size_t n, uint64_t addr);
int sym_raw_push(struct sym_rawvec *rv, const struct sym_raw *r);
int sym_elf_symbols(Elf *elf, const struct sym_xsec *xs, size_t nxs,
		    struct sym_arena *arena, struct sym_rawvec *out);

/* ---- a Go binary's function table (sym_gopclntab.c) ------------------ */

/* Append to `out` the functions of `elf`'s .gopclntab (Go 1.2 and later)
 * that lie in one of the executable sections `xs`; names point into the
 * section.  Returns how many, 0 when there is no usable table, -1 when out
 * of memory. */
int sym_go_symbols(Elf *elf, const struct sym_xsec *xs, size_t nxs, struct sym_rawvec *out);

/* ---- function starts from .eh_frame_hdr (sym_ehframe.c) ------------- */

/* Sorted start addresses of the object's FDEs (malloc'd into *starts, NULL
 * when there are none); returns their number. */
size_t sym_elf_fde_starts(Elf *elf, uint64_t **starts);

/* ---- separate debug files (sym_debuglink.c) -------------------------- */

Elf *sym_debug_find(const char *file, Elf *elf, const uint8_t *build_id,
		    size_t build_id_len, char **dbg_file);

/* ---- PLT (sym_plt.c) ------------------------------------------------- */

int sym_plt_symbols(struct sym_object *o, struct sym_rawvec *out);
bool sym_plt_section(const char *name);

/* ---- the function table (sym_table.c) -------------------------------- */

int sym_table_build(struct sym_object *o, struct sym_rawvec *raw);

/* ---- DWARF lines (sym_lines.c) --------------------------------------- */

struct sym_lines *sym_lines_open(Elf *elf);
bool sym_lines_find(struct sym_lines *l, uint64_t vaddr, const char **file,
		    int *line);
void sym_lines_free(struct sym_lines *l);
/* DW_AT_comp_dir of the CU holding `vaddr`, or NULL. */
const char *sym_lines_comp_dir(struct sym_lines *l, uint64_t vaddr);
/* Link name of the function the body at `vaddr` was taken from, or NULL. */
const char *sym_lines_enclosing(struct sym_lines *l, uint64_t vaddr);
/* The inlined calls at `vaddr`, outermost first (sym_object_inlines). */
size_t sym_lines_inlines(struct sym_lines *l, uint64_t vaddr, struct sym_inline *out, size_t max);

/* ---- demangling (sym_demangle.c) ------------------------------------- */

void sym_demangle_free(void);

#endif
