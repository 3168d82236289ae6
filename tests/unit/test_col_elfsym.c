/* SPDX-License-Identifier: MIT
 *
 * test_col_elfsym.c — a name's definition read from one object's own
 * symbol table (col_elfsym_lookup) is the loader's: for every object this
 * process loaded and names of each kind the collector's table asks for
 * (functions, an indirect function, data, a name with several versions, a
 * name absent), the address equals dlsym's on that object's handle when
 * the object itself defines it, and is NULL when it does not (a name with
 * hidden versions only too, as dlsym); by dl_iterate_phdr's base and
 * dynamic section as by the link_map.  The
 * objects are all initialised here, so dlopen(RTLD_NOLOAD) runs nothing.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "collector/col_elfsym.h"
#include "testhelp.h"

static const char *const names[] = {
	"malloc", "free", "write", "eventfd_read", "pthread_mutex_lock",
	"pthread_cond_wait",            /* GLIBC_2.2.5 hidden, GLIBC_2.3.2 default */
	"memcpy", "strlen",             /* indirect functions in libc */
	"environ", "stdout",            /* data */
	"clock_gettime", "dlopen", "tally_no_such_name",
};

struct in_object {
	const struct link_map *l;
	uintptr_t p;
	bool in;
};

static int in_object_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct in_object *q = data;

	(void)size;
	if (info->dlpi_addr != q->l->l_addr)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && q->p >= lo && q->p < lo + ph->p_memsz)
			q->in = true;
	}
	return 1;
}

/* dlsym's answer for object l alone: its definition when it is in l's
 * own segments (a handle's lookup searches its dependencies too). */
static void *loader_answer(const struct link_map *l, const char *name, bool *opened)
{
	void *h = dlopen(l->l_name, RTLD_LAZY | RTLD_NOLOAD);

	*opened = h != NULL;
	if (!h)
		return NULL;
	void *p = dlsym(h, name);
	struct in_object q = { l, (uintptr_t)p, false };
	if (p)
		dl_iterate_phdr(in_object_cb, &q);
	dlclose(h);
	return q.in ? p : NULL;
}

static void same_as_loader(void)
{
	int objects = 0, found = 0;

	for (const struct link_map *l = _r_debug.r_map; l; l = l->l_next) {
		if (!l->l_name || !l->l_name[0])
			continue;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			bool opened;
			void *want = loader_answer(l, names[i], &opened);
			if (!opened)
				break;
			void *got = col_elfsym_lookup(l, names[i]);
			CHECKF(got == want, "%s in %s: %p, the loader's %p", names[i], l->l_name, got, want);
			found += got != NULL;
			objects += i == 0;
		}
	}
	CHECKF(objects >= 2 && found >= 10, "%d objects, %d definitions", objects, found);
}

/* The default version of a name with two: what dlsym gives, not the
 * hidden older one. */
static void default_version_taken(void)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	struct link_map *l = NULL;

	if (!libc || dlinfo(libc, RTLD_DI_LINKMAP, &l) != 0 || !l)
		SKIP("no libc.so.6 loaded");
	void *older = dlvsym(libc, "pthread_cond_wait", "GLIBC_2.2.5");
	void *newer = dlvsym(libc, "pthread_cond_wait", "GLIBC_2.3.2");
	if (!older || !newer || older == newer)
		SKIP("libc has no two versions of pthread_cond_wait");
	CHECK(col_elfsym_lookup(l, "pthread_cond_wait") == newer);
	dlclose(libc);
}

/* A name whose only versions are hidden (name@VER, no name@@VER: libc's
 * compat-only sys_errlist): dlsym gives none (glibc's check_match passes a
 * hidden version over, even alone; only dlvsym takes it), and neither
 * does the symbol table's search. */
static void hidden_only_version_not_taken(void)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	struct link_map *l = NULL;

	if (!libc || dlinfo(libc, RTLD_DI_LINKMAP, &l) != 0 || !l)
		SKIP("no libc.so.6 loaded");
	if (!dlvsym(libc, "sys_errlist", "GLIBC_2.2.5") || dlsym(libc, "sys_errlist"))
		SKIP("libc's sys_errlist is not hidden-only here");
	CHECK(col_elfsym_lookup(l, "sys_errlist") == NULL);
	dlclose(libc);
}

/* The search as col_real makes it, under the loader's lock: each object
 * dl_iterate_phdr lists, by its load base and PT_DYNAMIC segment, gives
 * what its link_map gives. */
struct by_phdr {
	int objects, same;
};

static int by_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct by_phdr *q = data;

	(void)size;
	for (const struct link_map *l = _r_debug.r_map; l; l = l->l_next) {
		if (l->l_addr != info->dlpi_addr || !l->l_name || strcmp(l->l_name, info->dlpi_name))
			continue;
		for (int i = 0; i < info->dlpi_phnum; i++) {
			if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
				continue;
			const ElfW(Dyn) *dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
			q->objects++;
			q->same += dyn == l->l_ld && col_elfsym_lookup_at(info->dlpi_addr, dyn, "malloc") ==
							   col_elfsym_lookup(l, "malloc");
		}
		break;
	}
	return 0;
}

static void same_by_phdr(void)
{
	struct by_phdr q = { 0, 0 };

	dl_iterate_phdr(by_phdr_cb, &q);
	CHECKF(q.objects >= 2 && q.same == q.objects, "%d objects, %d the same", q.objects, q.same);
}

int main(void)
{
	RUN(same_as_loader);
	RUN(default_version_taken);
	RUN(hidden_only_version_not_taken);
	RUN(same_by_phdr);
	TEST_EXIT();
}
