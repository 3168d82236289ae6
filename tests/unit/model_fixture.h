/* SPDX-License-Identifier: MIT
 *
 * model_fixture.h — hand-built models for the unit tests of the model's
 * views and of the gprof analysis: one process, functions by name, entries
 * (stacks of function ids, root first, weighing cpu) and arcs.  Include it
 * in one test file; the model is the file-static `m`.
 */
#ifndef TALLY_MODEL_FIXTURE_H
#define TALLY_MODEL_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "model/model.h"

static struct model m;

/* Free the model and start an empty one of one process. */
static void model_reset(void)
{
	model_free(&m);
	memset(&m, 0, sizeof(m));
	m.procs = calloc(1, sizeof(*m.procs));
	m.nprocs = 1;
}

/* Add a function of program "prog"; returns its id. */
static uint32_t add_func(const char *name)
{
	m.funcs = realloc(m.funcs, (m.nfuncs + 1) * sizeof(*m.funcs));
	memset(&m.funcs[m.nfuncs], 0, sizeof(m.funcs[0]));
	m.funcs[m.nfuncs].name = strdup(name);
	m.funcs[m.nfuncs].object = strdup("prog");
	m.funcs[m.nfuncs].path = strdup("/bin/prog");
	return m.nfuncs++;
}

/* Add an entry: frames root first as function ids, weight in cpu. */
static void add_entry(const uint32_t *f, uint32_t n, uint64_t w)
{
	m.entries = realloc(m.entries, (m.nentries + 1) * sizeof(*m.entries));
	struct model_entry *e = &m.entries[m.nentries++];
	memset(e, 0, sizeof(*e));
	uint64_t *addrs = calloc(n + 1, sizeof(*addrs));
	model_entry_set_frames(&m, e, f, addrs, n);
	free(addrs);
	model_entry_add_value(&m, e, MODEL_CPU, w);
	m.total[MODEL_CPU] += w;
	m.present |= 1u << MODEL_CPU;
}

#endif
