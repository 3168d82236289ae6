/* SPDX-License-Identifier: MIT
 *
 * col_unwind.h — call-stack unwinding inside the target, from a signal
 * handler or an interposer.
 *
 * The unwinder follows DWARF call-frame information (.eh_frame, found through
 * each object's .eh_frame_hdr search table, registered outside the handler by
 * col_objects.c) and falls back to the frame-pointer chain where an address has
 * no CFI.  It is async-signal-safe: no allocation, no locks, and every memory
 * read is checked against the thread's stack or the object's mapped segment
 * first.  A per-thread cache remembers the unwind rule of recently seen pcs.
 */
#ifndef TALLY_COL_UNWIND_H
#define TALLY_COL_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/exp_records.h"

/* DWARF register numbers on x86-64. */
enum {
	UW_RAX, UW_RDX, UW_RCX, UW_RBX, UW_RSI, UW_RDI, UW_RBP, UW_RSP,
	UW_R8, UW_R9, UW_R10, UW_R11, UW_R12, UW_R13, UW_R14, UW_R15,
	UW_RIP, UW_NREGS
};

struct col_regs {
	uint64_t r[UW_NREGS];
	uint32_t valid;            /* bit i: r[i] is known */
};

#define COL_UNWIND_CACHE 512       /* entries per thread, a power of two */
/* A thread whose traced walks miss the cache more than COL_UNWIND_GROW_AFTER
 * times (since its object set last changed) takes a mapped cache of
 * COL_UNWIND_BIG entries instead (col_unwind.c). */
#define COL_UNWIND_BIG 8192
#define COL_UNWIND_GROW_AFTER (4 * COL_UNWIND_CACHE)
/* At most this many threads of a process have a big cache at once: 12 MiB
 * (32 x 384 KiB), about the stack table's level 4; a program with more
 * threads that walk that much is a server whose busiest threads get it. */
#define COL_UNWIND_BIG_MAX 32

struct col_unwind_rule {
	uint64_t pc;               /* lookup pc; 0 = empty slot */
	int8_t kind;               /* UW_RULE_* */
	int8_t cfa_reg;            /* CFA = r[cfa_reg] + cfa_off */
	uint8_t saved;             /* bit i: save[i] is an offset (read from the stack) */
	uint8_t undef;             /* bit i: register i becomes undefined */
	int32_t cfa_off;
	int32_t save[7];           /* rbx rbp r12 r13 r14 r15 ra: saved at CFA+off */
	uint32_t epoch;            /* the cache's epoch it was stored in (col_unwind.c) */
};

/* One register's rule while a CFA program runs (col_unwind.c). */
struct col_reg_rule {
	uint8_t how;               /* UW_SAME, UW_UNDEF, UW_OFFSET, ... */
	uint8_t reg;               /* UW_REGISTER: the register holding it */
	int32_t off;               /* UW_OFFSET / UW_VAL_OFFSET: CFA + off */
	const uint8_t *expr;       /* UW_EXPR / UW_VAL_EXPR: uleb length, then ops */
};

struct col_cfa_row {
	uint8_t cfa_reg;           /* CFA = r[cfa_reg] + cfa_off ... */
	int32_t cfa_off;
	const uint8_t *cfa_expr;   /* ... or the value of this expression */
	struct col_reg_rule reg[UW_NREGS];
};

#define COL_CFA_STATES 8           /* DW_CFA_remember_state depth */

/* Per-thread unwinder state: where it may read, the rule cache, and scratch
 * space for the CFA interpreter (kept off the possibly small signal stack). */
struct col_unwind_ctx {
	uint64_t stack_lo, stack_hi;   /* the thread's stack */
	/* NULL in the target (its memory is read where it is).  Outside it
	 * (src/outside/): a copy of the stack's bytes [stack_lo, stack_hi),
	 * and nothing else of the target's memory is readable. */
	const uint8_t *stack_copy;
	/* Outside it, when the copy is all the stack that was copied of a
	 * deeper one: set to 1 by a read that falls past its end (the walk
	 * was cut by the copy's size, not by a bad frame).  NULL: not asked. */
	uint32_t *copy_short;
	uint64_t generation;           /* object-set generation the cache is valid for */
	/* Set by each walk: the index in its pcs of the first signal
	 * trampoline it crossed (a return into it), -1 if none. */
	int first_sigframe;
	/* Not NULL (set by the caller, --data): each walk writes the CFA of
	 * its frame i < cfa_max to cfa_out[i] (0: unknown, as for a signal
	 * trampoline or the last frame). */
	uint64_t *cfa_out;
	int cfa_max;
	/* Set by a caller that knows only rsp and rip (a blocked thread's
	 * place from /proc): a frame whose CFA is rbp-based, rbp unknown,
	 * has rbp found on the stack (col_unwind.c, find_fp) instead of
	 * ending the walk.  Never in the signal handler (all registers
	 * known there). */
	bool find_fp;
	uint32_t misses;               /* cache misses of traced walks, this generation */
	uint32_t epoch;                /* entries of another epoch are empty (col_unwind.c) */
	struct col_unwind_rule *big;   /* COL_UNWIND_BIG entries mapped, or NULL: cache */
	struct col_unwind_rule cache[COL_UNWIND_CACHE];
	struct col_cfa_row row, init_row, saved[COL_CFA_STATES];
};

/* The previous traced stack of a thread, with each frame's CFA, so the next
 * event can reuse its outer frames once they are verified unchanged. */
struct col_unwind_prev {
	int n;                     /* frames; 0: none */
	int truncated, broken;
	int end;                   /* how the walk ended: 1 the last frame's CFI says it
	                              is the outermost; 2 its return address read 0 (at
	                              cfa[n-1] - 8); 0 otherwise, or not recorded here */
	/* Set by the walk that made it: every frame's return address was read
	 * at its CFA - 8 (by this walk's rules, or checked there by the reuse of
	 * the previous stack), so the words a memo entry would check
	 * (col_stacks.c) hold now, but for the end's 0 (end 2) of a reused
	 * tail, which no read of this walk saw. */
	bool ra_at_cfa;
	uint64_t pcs[EXP_MAX_FRAMES];
	uint64_t cfa[EXP_MAX_FRAMES];   /* cfa[i]: where frame i's return address + 8 is */
	uint64_t cur_cfa[EXP_MAX_FRAMES];   /* scratch: the stack being unwound */
};

/* Unwind from `regs` (all registers of the interrupted or current frame).
 * Writes at most `max` pcs, leaf first: pcs[0] = regs->r[UW_RIP], then return
 * addresses.  Sets *truncated if the stack had more than `max` frames and
 * *broken if the walk stopped at an unreadable or invalid frame before the
 * outermost frame (whose return address CFI marks undefined).
 * Returns the number of pcs.  Async-signal-safe. */
int col_unwind_sigsafe(struct col_unwind_ctx *ctx, struct col_regs *regs,
		       uint64_t *pcs, int max, int *truncated, int *broken);

/* The same for a traced call: regs->r[UW_RIP] is the return address into the
 * traced function's caller, with its stack pointer and frame pointer (the
 * only registers known).  Outer frames are taken from `prev` where they are
 * verifiably unchanged: a frame whose CFA and return address match a frame of
 * the previous stack, and every later return address still at its place
 * (CFA - 8).  `prev` is updated.  Async-signal-safe. */
int col_unwind_traced_sigsafe(struct col_unwind_ctx *ctx, struct col_regs *regs,
			      struct col_unwind_prev *prev, uint64_t *pcs, int max,
			      int *truncated, int *broken);

/* The pid the unwinder reads this process's memory by, off the thread's
 * stack (process_vm_readv): set at the collector's start, at an attach and
 * in a fork child, before any walk there; the process's own pid, never a
 * vfork child's (it reads its parent's memory, which it shares).  A child
 * made by a raw fork system call (no fork handler) keeps its parent's: its
 * reads off the stack then fail (EPERM under Yama's ptrace scope 1) or
 * read the parent's copy.  Not set: getpid() at each read. */
void col_unwind_set_pid(pid_t pid);

/* Give back the thread's grown rule cache, if it has one (its end). */
void col_unwind_release_sigsafe(struct col_unwind_ctx *ctx);
/* How many big caches the process has mapped now (tests). */
int col_unwind_big_caches(void);
/* How many rules ctx's cache (the big one if mapped) holds now (tests). */
uint32_t col_unwind_cached_rules(const struct col_unwind_ctx *ctx);

/* The CFA of the frame at return address `ra` (a traced call's caller),
 * with stack pointer `sp` and frame pointer `fp`, by a rule an earlier walk
 * cached for object-set generation `generation`: true and *cfa (and
 * *by_fp: the rule reads the frame pointer, not the stack pointer), or
 * false (no such rule cached).  Async-signal-safe, a few instructions. */
bool col_unwind_cfa_cached_sigsafe(const struct col_unwind_ctx *ctx, uint64_t generation,
				   uint64_t ra, uint64_t sp, uint64_t fp, uint64_t *cfa, bool *by_fp);

/* A stack word and the value it must hold (col_unwind_words_hold_sigsafe). */
struct col_unwind_word {
	uint64_t slot, want;
};

/* words_hold's way for words outside the thread's stack (col_unwind.c). */
bool col_unwind_words_read_sigsafe(const struct col_unwind_ctx *ctx, const struct col_unwind_word *w,
				   uint32_t i, uint32_t n);

/* Do the stack words w[0..n) hold their values?  Their slots must rise
 * (they do on one stack: CFAs grow toward the root).  Each read is checked
 * as the walk's are (an unreadable one: false).  Async-signal-safe.
 * Inline: it runs on every traced event a memo finds (col_stacks.c).  When
 * the first and the last word are in the thread's stack, all are, and they
 * are compared at once with no check each and no branch on their values
 * (read_mem's checks on each word made it 115 instructions for a 4-word
 * stack, callgrind, heapmix; a bounds check each, 73); words elsewhere take
 * read_mem's way. */
static inline bool col_unwind_words_hold_sigsafe(const struct col_unwind_ctx *ctx,
						 const struct col_unwind_word *w, uint32_t n)
{
	uint64_t lo = ctx->stack_lo, span = ctx->stack_hi - ctx->stack_lo, differ = 0;

	if (__builtin_expect(n && !ctx->stack_copy && span >= 8 && w[0].slot - lo <= span - 8 &&
			     w[n - 1].slot - lo <= span - 8, 1)) {
		/* The first word alone first: a memo's ways that share a
		 * key (ra, sp) differ there most often (the allocation
		 * wrapper's caller), and the entry's first line holds it. */
		__builtin_memcpy(&differ, (const void *)(uintptr_t)w[0].slot, 8);
		if (differ != w[0].want)
			return false;
		differ = 0;
		for (uint32_t i = 1; i < n; i++) {
			uint64_t v;
			__builtin_memcpy(&v, (const void *)(uintptr_t)w[i].slot, 8);
			differ |= v ^ w[i].want;
		}
		return !differ;
	}
	return col_unwind_words_read_sigsafe(ctx, w, 0, n);
}

/* Registers of an interrupted context (signal handler's ucontext_t). */
void col_regs_from_ucontext(const void *ucontext, struct col_regs *regs);

/* Is `pc` the signal return trampoline (mov $15,%rax; syscall) of a loaded
 * object? */
bool col_unwind_is_sigreturn_sigsafe(uint64_t pc);
/* Is pc inside the signal trampoline (an interrupted pc: at either of its
 * two instructions)? */
bool col_unwind_in_sigreturn_sigsafe(uint64_t pc);

/* Fill `regs` with the caller's registers, as if it were interrupted right
 * after this call returns (for interposers).  Implemented in assembly. */
void col_regs_capture(struct col_regs *regs);

#endif
