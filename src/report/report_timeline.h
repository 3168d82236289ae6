/* SPDX-License-Identifier: MIT
 *
 * report_timeline.h — what happened when, for the views with a time axis
 * (the HTML report's timeline, the chrome trace-event export): tracks
 * grouped by process, each with the samples of one thread and/or intervals
 * (lock waits, I/O calls, and whatever a later view adds: thread states, MPI
 * calls of a rank...).  A view that has intervals to show adds a track with
 * report_timeline_track and fills it with report_timeline_interval; the
 * writers draw every track the same way, whatever it holds.
 */
#ifndef TALLY_REPORT_TIMELINE_H
#define TALLY_REPORT_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* An interval of a track: [start_ns, end_ns), a label (an index into
 * report_timeline.labels: "mutex wait", "read /etc/passwd"...) and the call
 * stack it happened at (a model entry + 1, or 0). */
struct report_interval {
	uint64_t start_ns, end_ns;        /* CLOCK_MONOTONIC */
	uint32_t label;
	uint32_t entry;
};

/* A sample of a thread: the interval of CPU time it stands for. */
struct report_sample {
	uint64_t start_ns, end_ns;
	uint32_t entry;                   /* model entry */
};

struct report_track {
	uint32_t proc;                    /* model.procs index: the group */
	uint32_t tid;                     /* the thread's, or 0 for a track of the process */
	uint32_t life;                    /* the thread's life (model_thread.life): a reused id's */
	char name[64];                    /* "main 4242", "worker 4243", "states 4243" */
	struct report_sample *samples;    /* by start time */
	size_t nsamples, cap_samples;
	struct report_interval *iv;       /* by start time once finished */
	size_t niv, cap_iv;
};

/* A point in time worth a line across the tracks (tally_marker). */
struct report_mark {
	uint64_t time_ns;
	uint32_t proc;
	char *label;
};

/* A stretch in which a process recorded nothing (model_pauses.h): --delay,
 * --duration, the toggle signal, --control, tally_pause. */
struct report_gap {
	uint64_t start_ns, end_ns;
	uint32_t proc;
	unsigned reasons;                 /* bits 1 << enum exp_pause_reason */
};

struct report_timeline {
	uint64_t t0, t1;                  /* the span shown: first start .. last end */
	struct report_track *tracks;      /* by process, then thread */
	size_t ntracks, cap_tracks;
	char **labels;                    /* interval labels, interned */
	size_t nlabels, cap_labels;
	struct report_mark *marks;
	size_t nmarks, cap_marks;
	struct report_gap *gaps;          /* by process, then time */
	size_t ngaps, cap_gaps;
	void *label_index;                /* private: labels by their hash */
	void *track_index;                /* private: tracks by (proc, tid, name)'s hash */
};

/* The timeline of a model built with keep_events: a track per thread with
 * its clock samples (each covering the CPU time it weighs, laid end to end
 * so the track's busy time is the thread's sampled CPU time) and its traced
 * waits, I/O and MPI calls as intervals (a job's ranks are its processes);
 * the founders' markers; every process's gaps.  Returns 0, or -1
 * when out of memory. */
int report_timeline_build(struct report_timeline *tl, const struct model *m);

/* The track (proc, tid) named `name`, added if new; its index, or -1 when
 * out of memory.  For views that add their own tracks. */
long report_timeline_track(struct report_timeline *tl, uint32_t proc, uint32_t tid, const char *name);

/* Add an interval to track `track`; 0 or -1 when out of memory. */
int report_timeline_interval(struct report_timeline *tl, size_t track, uint64_t start_ns,
			     uint64_t end_ns, const char *label, uint32_t entry);

/* Sort every track's intervals and compute t0/t1; call once all is added. */
void report_timeline_finish(struct report_timeline *tl);

void report_timeline_free(struct report_timeline *tl);

#endif
