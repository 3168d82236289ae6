/* SPDX-License-Identifier: MIT
 *
 * mc_arcs.c — the arc tables' slow path: the first call in a thread, a full
 * table, thread exit and fork; and glibc's gmon entry points, taken over.
 *
 * A table is replaced by one four times larger when half full (or when a
 * probe runs long); the full one stays in the file and keeps its counts.
 * Counts are exact: nothing is shared between threads, so nothing is lost to
 * contention (glibc's mcount has one global busy flag and drops every arc
 * that arrives while another thread holds it).  The only drop is reentry in
 * the same thread (an instrumented signal handler interrupting us), counted
 * in the experiment as lost.arcs.
 */
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/platform/x86.h>

#include <sys/gmon.h>

#include "mcount/mc_internal.h"

#define FIRST_SLOTS 4096u
/* The largest table that is one record: a power of two of 32-byte slots
 * under EXP_REC_LEN_MAX (2^18).  A full one is followed by another. */
#define MAX_SLOTS (1u << 18)
_Static_assert(sizeof(struct exp_arc_table) + (uint64_t)MAX_SLOTS * sizeof(struct exp_arc) <= EXP_REC_LEN_MAX,
	       "an arc table must fit one record");

__thread struct mc_thread mc_self __attribute__((tls_model("initial-exec")));
int mc_off;
uint32_t mc_kind = EXP_ARCS_MCOUNT;
uint8_t mc_use_xsave;                  /* mc_entry.S: XSAVE, else FXSAVE */

static pthread_key_t thread_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* The tables of a thread that ends stay in the file; drop our mapping. */
struct mapping {
	void *table;
	uint64_t mapped;
	struct mapping *prev;
};

static void release_thread_tables(void *p)
{
	for (struct mapping *m = p, *prev; m; m = prev) {
		prev = m->prev;
		tally__arc_table_release(m->table, m->mapped);
		free(m);
	}
	memset(&mc_self, 0, sizeof(mc_self));
	mc_self.disabled = true;            /* late calls in this thread's exit */
}

static void make_key(void)
{
	pthread_key_create(&thread_key, release_thread_tables);
}

/* Start a new table of `nslots` for this thread. */
static bool new_table(struct mc_thread *t, uint32_t nslots)
{
	uint64_t mapped;
	bool net = mc_kind == EXP_ARCS_CYG && mc_cyg_call_ns;
	struct exp_arc_table *tab = tally__arc_table(nslots, mc_kind | (net ? EXP_ARCS_CYG_NET : 0), &mapped);

	if (!tab)
		return false;
	if (net) {
		tab->call_ns = mc_cyg_call_ns;
		tab->own_ns = mc_cyg_own_ns;
	}
	struct mapping *m = malloc(sizeof(*m));
	if (m) {
		pthread_once(&key_once, make_key);
		m->table = tab;
		m->mapped = mapped;
		m->prev = pthread_getspecific(thread_key);
		pthread_setspecific(thread_key, m);
	}
	t->slots = tab->slots;
	t->mask = nslots - 1;
	t->used = 0;
	t->limit = nslots / 2;
	return true;
}

void mc_arcs_note_cyg_net(void)
{
	struct mc_thread *t = &mc_self;

	if (!t->slots || !mc_cyg_call_ns)
		return;
	struct exp_arc_table *tab = (void *)((char *)t->slots - offsetof(struct exp_arc_table, slots));
	tab->call_ns = mc_cyg_call_ns;
	tab->own_ns = mc_cyg_own_ns;
	__atomic_or_fetch(&tab->flags, EXP_ARCS_CYG_NET, __ATOMIC_RELEASE);
}

struct exp_arc *mc_insert_slow(uint64_t frompc, uint64_t selfpc)
{
	struct mc_thread *t = &mc_self;
	struct exp_arc *a = NULL;

	_Static_assert(offsetof(struct mc_thread, slots) == 0 && offsetof(struct mc_thread, mask) == 8,
		       "mc_entry.S reads these offsets");
	if (t->busy) {
		tally__lost_arcs(1);
		return NULL;
	}
	t->busy = 1;
	struct exp_arc *slots = t->slots;
	uint64_t mask = t->mask;
	t->slots = NULL;             /* reentrant calls take the slow path */
	t->mask = 0;
	if (!tally__collecting() && !tally__standalone_start("linked with -ltally-mcount")) {
		t->disabled = true;
	} else {
		uint32_t n = slots ? (uint32_t)(mask + 1) * 4 : FIRST_SLOTS;
		if (n > MAX_SLOTS)
			n = MAX_SLOTS;
		if (new_table(t, n))
			a = mc_probe(t, frompc, selfpc, 1);
		else
			t->disabled = true;
	}
	if (!t->slots && !t->disabled) {
		t->slots = slots;
		t->mask = mask;
	}
	t->busy = 0;
	if (!a)
		tally__lost_arcs(1);
	return a;
}

static void after_fork_child(void)
{
	/* The tables belong to the parent's experiment; the child starts its
	 * own in its sub-experiment on its next call. */
	void *p = key_once == PTHREAD_ONCE_INIT ? NULL : pthread_getspecific(thread_key);
	for (struct mapping *m = p, *prev; m; m = prev) {
		prev = m->prev;
		munmap(m->table, m->mapped);
		free(m);
	}
	if (p)
		pthread_setspecific(thread_key, NULL);
	memset(&mc_self, 0, sizeof(mc_self));
}

__attribute__((constructor)) static void mc_init(void)
{
	/* glibc's copy of cpuid leaf 1: our own cpuid would be a VM exit
	 * (about 10 us in a VM) in every process, mcount used or not. */
	if (CPU_FEATURE_PRESENT(OSXSAVE))
		mc_use_xsave = 1;
	pthread_atfork(NULL, NULL, after_fork_child);
}

/* ---- glibc's gmon interface, taken over -------------------------------- */

/* gcrt1.o calls __monstartup and registers _mcleanup at exit: with tally the
 * histogram comes from the collector's sampler and the arcs are already in
 * the experiment, so glibc must neither start profil() nor write gmon.out. */
MC_API void __monstartup(unsigned long lowpc, unsigned long highpc)
{
	(void)lowpc, (void)highpc;
}

MC_API void monstartup(unsigned long lowpc, unsigned long highpc)
{
	(void)lowpc, (void)highpc;
}

MC_API void _mcleanup(void)
{
}

/* moncontrol(0) stops counting arcs, moncontrol(1) resumes (as in BSD). */
void moncontrol(int mode);
MC_API void moncontrol(int mode)
{
	__atomic_store_n(&mc_off, !mode, __ATOMIC_RELAXED);
}
