/* SPDX-License-Identifier: MIT
 *
 * model_gprof.h — the gprof call graph: functions as nodes, call arcs with
 * exact counts, self time per function, cycles (strongly connected
 * components, found and numbered as GNU gprof does), and the time each arc
 * carries from a callee to its caller.  `tally report --gprof` builds it
 * from a model, `tally gprof` from gmon.out files; report_gprof.c prints it.
 *
 * Two ways to give time to arcs (model_gprof.method):
 *  - MODEL_GPROF_PROPAGATE, the paper's: self time from pc samples only; a
 *    function's self+children time goes to its callers in proportion to
 *    their call counts (every call is assumed to take the average time);
 *    arcs inside a cycle carry nothing and a cycle is treated as a whole.
 *    Numbers are GNU gprof's, operation for operation (cg_arcs.c), so a
 *    listing of the same gmon.out rounds the same way.
 *  - MODEL_GPROF_STACKS, tally's: every sampled stack is cut into runs of
 *    frames of one strongly connected component (a component's frames are
 *    always consecutive, since the graph holds every caller-callee pair of
 *    the stacks).  The stack's weight is the self time of its leaf; it is
 *    the children time of the last frame of every other run; an arc between
 *    two runs carries it as self time when the callee's run is the leaf's,
 *    as children time otherwise.  So each stack counts once per arc and per
 *    function, even under recursion, and no average-call assumption is made.
 *    Call counts still come from the exact arcs when there are any.
 *  - MODEL_GPROF_TIMED, the paper's first timing method, for programs built
 *    with -finstrument-functions: each arc carries the time its calls took
 *    from entry to exit (the runtime's own time out, mc_cyg.c), counted only
 *    for a function's outermost activation.  A function's time is what its
 *    arcs in carry; its children time what its arcs out to other components
 *    carry; its self time the rest of its time less its arcs out to other
 *    functions.  An arc's time is split into self and children as its
 *    callee's (or the callee's cycle's) is.  Functions not instrumented
 *    show only as callers (their time is their instrumented callees').
 * Invariants: a function's or cycle's self + children never exceeds the
 * total; with PROPAGATE, the arcs into a function (or cycle) carry its
 * self + children times their share of its calls.
 *
 * Workload: 10^5 functions, 10^6 arcs, 10^6 stacks: everything is linear
 * or n log n (hash map for arcs, iterative Tarjan, one pass over stacks).
 * Not thread-safe.
 */
#ifndef TALLY_MODEL_GPROF_H
#define TALLY_MODEL_GPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "model/model_map.h"

struct gmon_profile;
struct sym_object;

enum model_gprof_method {
	MODEL_GPROF_STACKS,        /* time per arc measured from sampled stacks */
	MODEL_GPROF_PROPAGATE,     /* propagated from call counts (gprof) */
	MODEL_GPROF_TIMED,         /* entry-to-exit times (-finstrument-functions) */
};

#define MODEL_GPROF_NONE UINT32_MAX

struct model_gprof_node {
	const char *name;          /* display name (not owned) */
	const char *sort_name;     /* what gprof sorts by: the symbol as linked
				    * (mangled), else the display name */
	const char *object;        /* load object basename (not owned), "" if none */
	const char *file;          /* source file of a static function (gmon), or NULL */
	bool qualify;              /* name is not unique: show "name (object)" */
	bool artificial;           /* a PLT stub, uncovered code or <Unknown>: not
				    * in gprof's symbol table, numbered only if used */
	bool numbered;             /* in gprof's symbol table: given an [N] even with
				    * no time and no calls, as gprof does */
	double self;               /* self time, in units (gprof's hist.time) */
	double child;              /* children time (cg.child_time; flat profile) */
	double prop_self;          /* self and children as the call graph shows */
	double prop_child;         /*   them (cg.prop.self / cg.prop.child) */
	double spont_self;         /* STACKS: time of the stacks this function is */
	double spont_child;        /*   the root of (its <spontaneous> caller) */
	double fract;              /* PROPAGATE: share of its time passed up */
	uint64_t ncalls;           /* calls from other functions (exact arcs) */
	uint64_t self_calls;       /* recursive calls: the r of n+r */
	uint32_t cycle;            /* cycle number, 0 if in none */
	uint32_t member_next;      /* next member of its cycle, MODEL_GPROF_NONE ends */
	uint32_t top;              /* topological order, callees first (1-based) */
	uint32_t index;            /* [N] of the listing (1-based) */
};

struct model_gprof_cycle {
	double self, child;        /* the cycle as a whole */
	double prop_self, prop_child;
	double fract;
	uint64_t ncalls;           /* calls from outside the cycle */
	uint64_t self_calls;       /* calls among its members */
	uint32_t first;            /* first member (discovery order) */
	uint32_t nmembers;
	uint32_t index;            /* [N] of the listing */
};

struct model_gprof_arc {
	uint32_t caller, callee;   /* nodes */
	uint64_t count;            /* exact calls (0 when not counted) */
	bool counted;              /* count comes from an arc table */
	double self, child;        /* time the arc carries to the caller */
};

struct model_gprof {
	enum model_gprof_method method;
	struct model_gprof_node *nodes;
	uint32_t nnodes;
	struct model_gprof_arc *arcs;   /* in order of first appearance */
	size_t narcs, cap_arcs;
	struct model_gprof_cycle *cycles;   /* [1..ncycles]; [0] unused */
	uint32_t ncycles;
	/* Arcs by caller (out) and by callee (in), each node's in the reverse
	 * order of appearance (gprof's prepended lists); out_start[v] ..
	 * out_start[v + 1] index `out`. */
	size_t *out_start, *in_start;
	uint32_t *out, *in;
	uint32_t *order;           /* listing order: node ids, cycles as nnodes + c;
				    * unused artificial nodes left out */
	size_t norder;
	double units_per_sec;      /* 1e9 for ns, the rate for histogram ticks */
	long bin_bytes;            /* histogram: bytes per bin as gprof shows them;
				    * 0 when the time comes from stacks */
	char dimen[16];            /* unit of time columns: "seconds" */
	char dimen_abbrev;         /* 's' */
	double total;              /* flat profile's 100%: all samples */
	double print_time;         /* call graph's 100%: sum of prop_self */
	uint64_t nstacks;          /* STACKS: distinct stacks with weight */
	uint32_t call_ns, own_ns;  /* TIMED: the runtime's time left out (model.cyg_*) */
	bool has_counts;           /* some arc has an exact count */
	struct model_map arc_of;   /* (caller, callee) -> arc index + 1 */
};

/* An empty graph of `nnodes` nodes (names, sort names and objects "", set
 * by the caller).  Returns 0 or -1 when out of memory; model_gprof_free
 * releases it either way. */
int model_gprof_init(struct model_gprof *g, uint32_t nnodes, double units_per_sec);

/* Add `count` calls caller -> callee, merged with an arc already there;
 * `counted` says the count is exact (an arc seen only in stacks has none).
 * Returns the arc's index, or -1 when out of memory. */
long model_gprof_arc_add(struct model_gprof *g, uint32_t caller, uint32_t callee, uint64_t count,
			 bool counted);

/* The histogram method on a graph whose arcs are added and whose nodes'
 * `self` and g->total are set: call counts, cycles, gprof's propagation,
 * listing order.  Returns 0 or -1 (out of memory). */
int model_gprof_propagate(struct model_gprof *g);

/* The graph of model `m` for `metric`: STACKS measures every arc from the
 * entries (arcs: model.arcs plus every caller-callee pair of a stack);
 * PROPAGATE takes self time from the entries' leaves and propagates it
 * along model.arcs; TIMED takes the times of model.arcs (whatever `metric`;
 * model_gprof_timed_arcs says whether there are any).  Returns 0 or -1
 * (out of memory). */
int model_gprof_from_model(struct model_gprof *g, const struct model *m, enum model_metric metric,
			   enum model_gprof_method method);

/* Does model `m` hold arcs timed from entry to exit (-finstrument-functions)? */
bool model_gprof_timed_arcs(const struct model *m);

/* Why samples or arcs of a gmon profile found no function. */
struct model_gprof_gmon_stats {
	uint64_t outside_samples;  /* in histogram bins that overlap no function */
	uint64_t unknown_arcs;     /* arcs with an end outside every function */
};

/* The graph of gmon.out profile `p` of the executable `o` (whose functions,
 * in address order, are the nodes, plus <Unknown> last): histogram bins
 * credited to functions by overlap and arcs symbolized as GNU gprof does
 * (except that a call site is looked up at from_pc - 1, inside the call),
 * then propagated.  Returns 0, or -1 with `err`. */
int model_gprof_from_gmon(struct model_gprof *g, const struct gmon_profile *p,
			  struct sym_object *o, struct model_gprof_gmon_stats *st,
			  char *err, size_t errlen);

void model_gprof_free(struct model_gprof *g);

/* Which of m's functions share their display name with a function of
 * another object, and are shown qualified (model_func_label).  Returns a
 * malloc'd array of m->nfuncs flags, or NULL when out of memory. */
bool *model_gprof_qualified(const struct model *m);

#endif
