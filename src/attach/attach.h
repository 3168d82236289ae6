/* SPDX-License-Identifier: MIT
 *
 * attach.h — loading the collector into a running process (`tally record -p`).
 *
 * Three steps, each in its own file, called by src/cli/cli_attach.c:
 *   attach_check   (attach_check.c)  may we attach at all?  Reads /proc only;
 *                                    every refusal is one line, before the
 *                                    process is touched;
 *   attach_inject  (attach_inject.c) stop one thread with ptrace, make it call
 *                                    dlopen(libtally-collector.so) and then
 *                                    tally__attach(DIR, OPTIONS), restore it
 *                                    exactly, detach;
 * helped by attach_proc.c (maps, status, threads of a process),
 * attach_symbol.c (a symbol's run-time address from an object's ELF file) and
 * attach_ptrace.c (saving, restoring and borrowing a stopped thread).
 * docs/attach.md explains the design and its failure modes.
 */
#ifndef TALLY_ATTACH_H
#define TALLY_ATTACH_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* One line of /proc/PID/maps. */
struct attach_map {
	uint64_t start, end, offset;
	char perms[5];
	unsigned dev_major, dev_minor;
	uint64_t inode;
	char path[PATH_MAX];
};

struct attach_maps {
	struct attach_map *v;
	size_t n;
};

/* What attach_check found out about the process. */
struct attach_target {
	pid_t pid;
	uid_t uid;                  /* real and effective ids of the process */
	uid_t euid;
	gid_t gid, egid;
	char name[64];              /* its comm */
	char exe[PATH_MAX];
	char why[1024];             /* the refusal, one line */
	bool is_static;             /* no dynamic loader, or a Go runtime that would replace the
	                               collector's handlers: it is sampled from outside instead
	                               (src/outside/) */
	char outside_why[128];      /* why, for the log and the message: "statically linked" */
};

/* Timings of one injection, for the log and `make bench`. */
struct attach_timing {
	pid_t tid;                  /* the thread that made the calls */
	uint64_t stopped_ns;        /* that thread stopped by us: interrupt to detach */
	uint64_t probe_ns;          /* stops of threads looked at and not chosen */
	unsigned probes;            /* threads stopped to look at them */
	unsigned syscall_stops;     /* system-call stops passed during the calls */
	char how[160];              /* where the thread was: "blocked in read", ... */
};

/* ---- attach_proc.c ---------------------------------------------------- */
/* Read /proc/PID/maps.  0 or -errno. */
int attach_maps_read(pid_t pid, struct attach_maps *m);
void attach_maps_free(struct attach_maps *m);
/* The mapping holding `addr`, or NULL. */
const struct attach_map *attach_maps_find(const struct attach_maps *m, uint64_t addr);
/* The file name of a mapping without its directory. */
const char *attach_map_base(const struct attach_map *m);
/* Value of field `key` ("TracerPid") in /proc/PID/status (or
 * /proc/PID/task/TID/status when tid > 0), copied to out.  0 or -errno. */
int attach_status_field(pid_t pid, pid_t tid, const char *key, char *out, size_t len);
/* The threads of PID (its main thread first).  Returns the count, -errno. */
int attach_threads(pid_t pid, pid_t *tids, int max);

/* ---- attach_symbol.c ------------------------------------------------- */
/* Run-time address in process `pid` of the dynamic symbol `name` defined by
 * the object mapped from `obj` (any of its mappings), reading the ELF file
 * the mapping came from (checked by device and inode).  0 if not found;
 * `why` says why. */
uint64_t attach_symbol(pid_t pid, const struct attach_maps *m, const struct attach_map *obj,
		       const char *name, char *why, size_t whylen);

/* ---- attach_check.c -------------------------------------------------- */
/* Every reason not to attach to a process, found without touching it: 0, or
 * 2 with t->why set (one line). */
int attach_check(pid_t pid, struct attach_target *t);
/* Can the process's user read the collector and write in `expdir`?  0 or 2. */
int attach_check_reachable(struct attach_target *t, const char *collector, const char *expdir);
/* The ptrace-permission verdict alone, for tests: NULL if allowed, else why.
 * yama: kernel.yama.ptrace_scope (-1: no Yama); cap: we have CAP_SYS_PTRACE. */
const char *attach_permission_why(int yama, bool cap, bool same_ids, bool descendant,
				  char *buf, size_t len);

/* ---- attach_inject.c ------------------------------------------------- */
/* dlopen `collector` in the process and call tally__attach(expdir, options)
 * there; the process goes on as if nothing happened.  0, or -1 with a one-line
 * reason in t->why (the process is then left as it was). */
int attach_inject(struct attach_target *t, const char *collector, const char *expdir,
		  const char *options, struct attach_timing *tm);

#endif
