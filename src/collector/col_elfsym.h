/* SPDX-License-Identifier: MIT
 *
 * col_elfsym.h — a name's definition in one loaded object, read from that
 * object's own dynamic symbol table, with no call into the dynamic loader.
 */
#ifndef TALLY_COL_ELFSYM_H
#define TALLY_COL_ELFSYM_H

#include <link.h>

/* The address `name` has in object l itself, as dlsym would give it for
 * that object alone: its default version (a hidden one, name@VER, is
 * passed over), an indirect function's resolver called.  NULL when l does
 * not define it, or has neither a GNU nor a SysV hash table.
 *
 * No loader call: dlopen(RTLD_NOLOAD) of an object the program loaded at
 * start runs the constructors of every object in its dependencies not yet
 * initialised, out of the program's order (the reason, col_real.c).
 * Normal context; no allocation, no lock. */
void *col_elfsym_lookup(const struct link_map *l, const char *name);

/* The same for the object loaded at `base` whose dynamic section is at
 * `dynamic` (dl_iterate_phdr's dlpi_addr and its PT_DYNAMIC segment). */
void *col_elfsym_lookup_at(ElfW(Addr) base, const ElfW(Dyn) *dynamic, const char *name);

#endif
