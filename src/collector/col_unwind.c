/* SPDX-License-Identifier: MIT
 *
 * col_unwind.c — the CFI unwinder (see col_unwind.h).
 *
 * Runs in the signal handler and in interposers, in any thread.  For each
 * frame: look the pc up in the per-thread rule cache; on a miss, find the
 * object (col_objset.h snapshot), binary-search its .eh_frame_hdr table for
 * the FDE, run the CIE and FDE call-frame programs up to the pc, and cache the
 * resulting row when it has the simple shape (CFA = register + offset,
 * registers saved at CFA + offset), which is nearly always.  Rows with DWARF
 * expressions (PLT0, stack realignment) are evaluated each time.  Addresses
 * without CFI use the frame-pointer chain.  The kernel's signal trampoline
 * (__restore_rt) is recognized by its bytes, and the interrupted registers are
 * taken from the ucontext it will restore.
 *
 * Every read of .eh_frame is bounded by the object's mapped segment; every
 * stack read by the thread's stack (or done with process_vm_readv, which
 * fails instead of faulting).  Sigsafe file: no stdio, malloc or locks.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "collector/col_objset.h"
#include "collector/col_unwind.h"
#include "format/exp_write_sys.h"

enum { UW_SAME, UW_UNDEF, UW_OFFSET, UW_VAL_OFFSET, UW_REGISTER, UW_EXPR, UW_VAL_EXPR };
enum { UW_RULE_SIMPLE = 1, UW_RULE_END = 2 };

#define UW_CFA_EXPR 0xff          /* cfa_reg value meaning "CFA is cfa_expr" */
#define UW_SAVE_SAME INT32_MIN    /* col_unwind_rule.save: not saved */
#define UW_SAVE_UNDEF (INT32_MIN + 1)

/* The registers a cached rule tracks, in col_unwind_rule.save order. */
static const uint8_t tracked[7] = { UW_RBX, UW_RBP, UW_R12, UW_R13, UW_R14, UW_R15, UW_RIP };

/* ---- memory ------------------------------------------------------------ */

/* The process's pid for read_mem_slow, set by the collector at its start,
 * an attach and in a fork child (col_unwind_set_pid); 0: not set (the
 * outside mode, a unit test), asked each time. */
static _Atomic pid_t own_pid;

void col_unwind_set_pid(pid_t pid)
{
	atomic_store_explicit(&own_pid, pid, memory_order_relaxed);
}

/* Off the known stack (an alternate signal stack, a coroutine): ask the
 * kernel, which reports EFAULT instead of delivering SIGSEGV.  The pid is
 * the one set, not a getpid system call per word (a walk off the stack
 * read up to thousands of words). */
static bool read_mem_slow(uint64_t addr, uint64_t *out)
{
	if (addr < 4096)
		return false;
	pid_t pid = atomic_load_explicit(&own_pid, memory_order_relaxed);
	struct iovec local = { out, 8 }, remote = { (void *)(uintptr_t)addr, 8 };
	return process_vm_readv(pid ? pid : getpid(), &local, 1, &remote, 1, 0) == 8;
}

static inline bool read_mem(const struct col_unwind_ctx *ctx, uint64_t addr, uint64_t *out)
{
	if (__builtin_expect(addr - ctx->stack_lo <= ctx->stack_hi - ctx->stack_lo - 8, 1) &&
	    ctx->stack_hi - ctx->stack_lo >= 8) {
		if (ctx->stack_copy)
			memcpy(out, ctx->stack_copy + (addr - ctx->stack_lo), 8);
		else
			memcpy(out, (const void *)(uintptr_t)addr, 8);
		return true;
	}
	if (ctx->stack_copy) {
		if (ctx->copy_short && addr + 8 > ctx->stack_hi && addr - ctx->stack_hi < (1u << 20))
			*ctx->copy_short = 1;
		return false;
	}
	return read_mem_slow(addr, out);
}

/* A bounded cursor over an object's read-only data, where it is read
 * (runtime address + delta: the object's mem_delta). */
struct rd {
	const uint8_t *p, *end;
	bool bad;
	int64_t delta;
};

/* The runtime address of object `o`'s byte read at `p`, and back. */
static inline uint64_t rt_addr(const struct col_object *o, const uint8_t *p)
{
	return (uint64_t)(uintptr_t)p - (uint64_t)o->mem_delta;
}

static inline const uint8_t *at_rt(const struct col_object *o, uint64_t addr)
{
	return (const uint8_t *)(uintptr_t)(addr + (uint64_t)o->mem_delta);
}

/* The readable range of object `o`'s CFI that holds runtime address
 * `addr`: the copy made from its .debug_frame, or the segment holding
 * its .eh_frame (col_objset.h). */
static inline uint64_t cfi_lo(const struct col_object *o, uint64_t addr)
{
	return addr - o->cfi2_lo < o->cfi2_hi - o->cfi2_lo ? o->cfi2_lo : o->ro_lo;
}

static inline uint64_t cfi_hi(const struct col_object *o, uint64_t addr)
{
	return addr - o->cfi2_lo < o->cfi2_hi - o->cfi2_lo ? o->cfi2_hi : o->ro_hi;
}

/* Does object `o`'s .debug_frame copy still hold what `o` names?  Its
 * range's first word is its fill's number (col_objset.h): another number,
 * or 0 (its pages given back), is a refill for another object since the
 * snapshot holding `o` was loaded.  True for an object without a copy. */
static inline bool cfi2_still(const struct col_object *o)
{
	return !o->cfi2_lo ||
	       __atomic_load_n((const uint64_t *)(uintptr_t)at_rt(o, o->cfi2_lo), __ATOMIC_ACQUIRE) == o->cfi2_fill;
}

static uint64_t rd_bytes(struct rd *r, int n)
{
	uint64_t v = 0;

	if (r->bad || r->end - r->p < n) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, (size_t)n);   /* little-endian host */
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (!r->bad) {
		if (r->p >= r->end) {
			r->bad = true;
			break;
		}
		uint8_t b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (!r->bad) {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* A DW_EH_PE-encoded pointer. `datarel` is the .eh_frame_hdr address. */
static uint64_t rd_ptr(struct rd *r, uint8_t enc, uint64_t datarel)
{
	uint64_t at = (uint64_t)(uintptr_t)r->p - (uint64_t)r->delta, v;

	if (enc == 0xff)
		return 0;
	switch (enc & 0x0f) {
	case 0x00: v = rd_bytes(r, 8); break;
	case 0x01: v = rd_uleb(r); break;
	case 0x02: v = rd_bytes(r, 2); break;
	case 0x03: v = rd_bytes(r, 4); break;
	case 0x04: v = rd_bytes(r, 8); break;
	case 0x09: v = (uint64_t)rd_sleb(r); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)rd_bytes(r, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)rd_bytes(r, 4); break;
	case 0x0c: v = rd_bytes(r, 8); break;
	default: r->bad = true; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += at; break;
	case 0x30: v += datarel; break;
	default: r->bad = true; return 0;
	}
	return v;   /* DW_EH_PE_indirect (0x80) only occurs for personalities, unused */
}

/* ---- DWARF expressions --------------------------------------------------- */

/* Evaluate `expr` (uleb length, then ops) with `initial` pushed first (the CFA
 * for register rules).  Returns false on anything unsupported or unreadable. */
static bool eval_expr(const struct col_unwind_ctx *ctx, const struct col_object *o,
		      const uint8_t *expr, const struct col_regs *regs, bool push_initial,
		      uint64_t initial, uint64_t *out)
{
	struct rd r = { expr, at_rt(o, cfi_hi(o, rt_addr(o, expr))), false, o->mem_delta };
	uint64_t len = rd_uleb(&r);
	uint64_t st[16];
	int sp = 0, steps = 0;

	if (r.bad || len > (uint64_t)(r.end - r.p))
		return false;
	r.end = r.p + len;
	if (push_initial)
		st[sp++] = initial;
	while (r.p < r.end && !r.bad) {
		uint8_t op = (uint8_t)rd_bytes(&r, 1);
		uint64_t a, b;

		if (++steps > 64)
			return false;
		if (op >= 0x70 && op <= 0x8f) {          /* DW_OP_breg0..31 */
			int reg = op - 0x70;           /* 16: rip (a PLT entry's CFA) */
			int64_t off = rd_sleb(&r);
			if (reg >= UW_NREGS || !(regs->valid & (1u << reg)) || sp >= 16)
				return false;
			st[sp++] = regs->r[reg] + (uint64_t)off;
			continue;
		}
		if (op >= 0x30 && op <= 0x4f) {          /* DW_OP_lit0..31 */
			if (sp >= 16)
				return false;
			st[sp++] = op - 0x30u;
			continue;
		}
		switch (op) {
		case 0x92: {                              /* DW_OP_bregx */
			uint64_t reg = rd_uleb(&r);
			int64_t off = rd_sleb(&r);
			if (reg >= UW_NREGS || !(regs->valid & (1u << reg)) || sp >= 16)
				return false;
			st[sp++] = regs->r[reg] + (uint64_t)off;
			continue;
		}
		case 0x08: a = rd_bytes(&r, 1); goto push;
		case 0x09: a = (uint64_t)(int64_t)(int8_t)rd_bytes(&r, 1); goto push;
		case 0x0a: a = rd_bytes(&r, 2); goto push;
		case 0x0b: a = (uint64_t)(int64_t)(int16_t)rd_bytes(&r, 2); goto push;
		case 0x0c: a = rd_bytes(&r, 4); goto push;
		case 0x0d: a = (uint64_t)(int64_t)(int32_t)rd_bytes(&r, 4); goto push;
		case 0x0e: case 0x0f: a = rd_bytes(&r, 8); goto push;
		case 0x10: a = rd_uleb(&r); goto push;
		case 0x11: a = (uint64_t)rd_sleb(&r); goto push;
		case 0x12: if (sp < 1) return false; a = st[sp - 1]; goto push;    /* dup */
		case 0x14: if (sp < 2) return false; a = st[sp - 2]; goto push;    /* over */
		case 0x13: if (sp < 1) return false; sp--; continue;               /* drop */
		case 0x16: if (sp < 2) return false;                               /* swap */
			a = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = a; continue;
		case 0x06:                                                         /* deref */
			if (sp < 1 || !read_mem(ctx, st[sp - 1], &st[sp - 1]))
				return false;
			continue;
		case 0x23: if (sp < 1) return false; st[sp - 1] += rd_uleb(&r); continue;
		case 0x1f: if (sp < 1) return false; st[sp - 1] = -st[sp - 1]; continue;
		case 0x20: if (sp < 1) return false; st[sp - 1] = ~st[sp - 1]; continue;
		case 0x96: continue;                                               /* nop */
		case 0x1a: case 0x1c: case 0x1e: case 0x21: case 0x22: case 0x24:
		case 0x25: case 0x27: case 0x29: case 0x2a: case 0x2b: case 0x2c:
		case 0x2d: case 0x2e:
			if (sp < 2)
				return false;
			b = st[--sp];
			a = st[sp - 1];
			switch (op) {
			case 0x1a: a &= b; break;
			case 0x1c: a -= b; break;
			case 0x1e: a *= b; break;
			case 0x21: a |= b; break;
			case 0x22: a += b; break;
			case 0x24: a = b < 64 ? a << b : 0; break;
			case 0x25: a = b < 64 ? a >> b : 0; break;
			case 0x27: a ^= b; break;
			case 0x29: a = a == b; break;
			case 0x2a: a = (int64_t)a >= (int64_t)b; break;
			case 0x2b: a = (int64_t)a > (int64_t)b; break;
			case 0x2c: a = (int64_t)a <= (int64_t)b; break;
			case 0x2d: a = (int64_t)a < (int64_t)b; break;
			case 0x2e: a = a != b; break;
			}
			st[sp - 1] = a;
			continue;
		default:
			return false;
		}
push:
		if (sp >= 16)
			return false;
		st[sp++] = a;
	}
	if (r.bad || sp < 1)
		return false;
	*out = st[sp - 1];
	return true;
}

/* ---- CIE / FDE ----------------------------------------------------------- */

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t fde_enc;
	bool aug_z;
	struct rd insns;
};

/* Read a length-prefixed .eh_frame entry at `p`: returns a cursor over its
 * body (after the length) or bad. */
static struct rd entry_at(const struct col_object *o, const uint8_t *p)
{
	struct rd r = { p, at_rt(o, cfi_hi(o, rt_addr(o, p))), false, o->mem_delta };

	if (rt_addr(o, p) < cfi_lo(o, rt_addr(o, p))) {
		r.bad = true;
		return r;
	}
	uint64_t len = rd_bytes(&r, 4);
	if (len == 0xffffffffu)
		len = rd_bytes(&r, 8);
	if (r.bad || len == 0 || len > (uint64_t)(r.end - r.p)) {
		r.bad = true;
		return r;
	}
	r.end = r.p + len;
	return r;
}

static bool parse_cie(const struct col_object *o, const uint8_t *p, struct cie *c)
{
	struct rd r = entry_at(o, p);
	char aug[8];
	int n = 0;

	if (r.bad || rd_bytes(&r, 4) != 0)          /* CIE id is 0 in .eh_frame */
		return false;
	uint8_t version = (uint8_t)rd_bytes(&r, 1);
	if (version != 1 && version != 3)
		return false;
	while (!r.bad) {
		uint8_t ch = (uint8_t)rd_bytes(&r, 1);
		if (ch == 0)
			break;
		if (n >= (int)sizeof(aug) - 1)
			return false;
		aug[n++] = (char)ch;
	}
	aug[n] = 0;
	c->code_align = rd_uleb(&r);
	c->data_align = rd_sleb(&r);
	c->ra_reg = version == 1 ? rd_bytes(&r, 1) : rd_uleb(&r);
	c->fde_enc = 0;
	c->aug_z = aug[0] == 'z';
	if (c->aug_z) {
		uint64_t alen = rd_uleb(&r);
		if (r.bad || alen > (uint64_t)(r.end - r.p))
			return false;
		struct rd a = { r.p, r.p + alen, false, r.delta };
		for (int i = 1; aug[i] && !a.bad; i++) {
			switch (aug[i]) {
			case 'R': c->fde_enc = (uint8_t)rd_bytes(&a, 1); break;
			case 'L': rd_bytes(&a, 1); break;
			case 'P': {
				uint8_t enc = (uint8_t)rd_bytes(&a, 1);
				rd_ptr(&a, enc & 0x7f, rt_addr(o, o->eh_hdr));
				break;
			}
			case 'S': case 'B': case 'G': break;
			default: return false;
			}
		}
		if (a.bad)
			return false;
		r.p += alen;
	} else if (n > 0) {
		return false;                            /* unknown augmentation */
	}
	if (r.bad || c->ra_reg >= UW_NREGS || c->code_align == 0)
		return false;
	c->insns = r;
	return true;
}

/* Find the FDE covering `pc`; returns its instructions, CIE and start. */
static bool find_fde(const struct col_object *o, uint64_t pc, struct cie *c,
		     struct rd *insns, uint64_t *fde_start)
{
	const uint8_t *t = o->fde_table;
	uint64_t hdr = rt_addr(o, o->eh_hdr);
	uint64_t lo = 0, hi = o->fde_count;

	if (!t || hi == 0)
		return false;
	/* Largest entry with initial_loc <= pc. */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		int32_t loc;
		memcpy(&loc, t + mid * 8, 4);
		if (hdr + (uint64_t)(int64_t)loc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	int32_t loc, fde_off;
	memcpy(&loc, t + lo * 8, 4);
	memcpy(&fde_off, t + lo * 8 + 4, 4);
	if (hdr + (uint64_t)(int64_t)loc > pc)
		return false;
	const uint8_t *fde = at_rt(o, hdr + (uint64_t)(int64_t)fde_off);
	struct rd r = entry_at(o, fde);
	if (r.bad)
		return false;
	const uint8_t *id_at = r.p;
	uint64_t cie_off = rd_bytes(&r, 4);
	if (r.bad || cie_off == 0 || cie_off > (uint64_t)(id_at - at_rt(o, cfi_lo(o, rt_addr(o, id_at)))))
		return false;
	if (!parse_cie(o, id_at - cie_off, c))
		return false;
	uint64_t start = rd_ptr(&r, c->fde_enc, hdr);
	uint64_t range = rd_ptr(&r, c->fde_enc & 0x0f, hdr);
	if (r.bad || pc < start || pc - start >= range)
		return false;
	if (c->aug_z) {
		uint64_t alen = rd_uleb(&r);
		if (r.bad || alen > (uint64_t)(r.end - r.p))
			return false;
		r.p += alen;
	}
	*insns = r;
	*fde_start = start;
	return true;
}

static void set_rule(struct col_cfa_row *row, uint64_t reg, uint8_t how, int64_t off,
		     const uint8_t *expr)
{
	if (reg >= UW_NREGS)
		return;                                  /* vector registers: not needed */
	row->reg[reg].how = how;
	row->reg[reg].off = (int32_t)off;
	row->reg[reg].expr = expr;
}

/* Skip an expression operand (uleb length + bytes); returns its start. */
static const uint8_t *skip_expr(struct rd *r)
{
	const uint8_t *at = r->p;
	uint64_t len = rd_uleb(r);

	if (r->bad || len > (uint64_t)(r->end - r->p)) {
		r->bad = true;
		return NULL;
	}
	r->p += len;
	return at;
}

/* Run a call-frame program from `loc` until the row for `pc` is complete.
 * `init` is the row after the CIE program (for DW_CFA_restore). */
static bool run_cfa(struct col_unwind_ctx *ctx, struct rd r, const struct cie *c,
		    uint64_t loc, uint64_t pc, struct col_cfa_row *row,
		    const struct col_cfa_row *init, uint64_t datarel)
{
	int depth = 0;

	while (r.p < r.end && !r.bad) {
		uint8_t op = (uint8_t)rd_bytes(&r, 1);
		uint64_t reg, delta;

		switch (op & 0xc0) {
		case 0x40:                               /* advance_loc */
			loc += (op & 0x3f) * c->code_align;
			if (loc > pc)
				return true;
			continue;
		case 0x80:                               /* offset */
			set_rule(row, op & 0x3f, UW_OFFSET, (int64_t)rd_uleb(&r) * c->data_align, NULL);
			continue;
		case 0xc0:                               /* restore */
			if (init && (op & 0x3f) < UW_NREGS)
				row->reg[op & 0x3f] = init->reg[op & 0x3f];
			continue;
		}
		switch (op) {
		case 0x00: break;
		case 0x01:
			loc = rd_ptr(&r, c->fde_enc, datarel);
			if (loc > pc)
				return true;
			break;
		case 0x02: case 0x03: case 0x04:
			delta = rd_bytes(&r, op == 0x02 ? 1 : op == 0x03 ? 2 : 4);
			loc += delta * c->code_align;
			if (loc > pc)
				return true;
			break;
		case 0x05:
			reg = rd_uleb(&r);
			set_rule(row, reg, UW_OFFSET, (int64_t)rd_uleb(&r) * c->data_align, NULL);
			break;
		case 0x06:
			reg = rd_uleb(&r);
			if (init && reg < UW_NREGS)
				row->reg[reg] = init->reg[reg];
			break;
		case 0x07: set_rule(row, rd_uleb(&r), UW_UNDEF, 0, NULL); break;
		case 0x08: set_rule(row, rd_uleb(&r), UW_SAME, 0, NULL); break;
		case 0x09:
			reg = rd_uleb(&r);
			delta = rd_uleb(&r);
			if (reg < UW_NREGS && delta < UW_NREGS) {
				row->reg[reg].how = UW_REGISTER;
				row->reg[reg].reg = (uint8_t)delta;
			}
			break;
		case 0x0a:
			if (depth >= COL_CFA_STATES)
				return false;
			ctx->saved[depth++] = *row;
			break;
		case 0x0b:
			/* The CFA rule is part of the remembered state (GCC
			 * brackets epilogues with remember/restore). */
			if (depth <= 0)
				return false;
			*row = ctx->saved[--depth];
			break;
		case 0x0c:
			row->cfa_reg = (uint8_t)rd_uleb(&r);
			row->cfa_off = (int32_t)rd_uleb(&r);
			break;
		case 0x0d: row->cfa_reg = (uint8_t)rd_uleb(&r); break;
		case 0x0e: row->cfa_off = (int32_t)rd_uleb(&r); break;
		case 0x0f:
			row->cfa_reg = UW_CFA_EXPR;
			row->cfa_expr = skip_expr(&r);
			break;
		case 0x10:
			reg = rd_uleb(&r);
			set_rule(row, reg, UW_EXPR, 0, skip_expr(&r));
			break;
		case 0x11:
			reg = rd_uleb(&r);
			set_rule(row, reg, UW_OFFSET, rd_sleb(&r) * c->data_align, NULL);
			break;
		case 0x12:
			row->cfa_reg = (uint8_t)rd_uleb(&r);
			row->cfa_off = (int32_t)(rd_sleb(&r) * c->data_align);
			break;
		case 0x13: row->cfa_off = (int32_t)(rd_sleb(&r) * c->data_align); break;
		case 0x14:
			reg = rd_uleb(&r);
			set_rule(row, reg, UW_VAL_OFFSET, (int64_t)rd_uleb(&r) * c->data_align, NULL);
			break;
		case 0x15:
			reg = rd_uleb(&r);
			set_rule(row, reg, UW_VAL_OFFSET, rd_sleb(&r) * c->data_align, NULL);
			break;
		case 0x16:
			reg = rd_uleb(&r);
			set_rule(row, reg, UW_VAL_EXPR, 0, skip_expr(&r));
			break;
		case 0x2e: rd_uleb(&r); break;           /* GNU_args_size */
		case 0x2f:
			reg = rd_uleb(&r);
			set_rule(row, reg, UW_OFFSET, -(int64_t)rd_uleb(&r) * c->data_align, NULL);
			break;
		default:
			return false;
		}
	}
	return !r.bad;
}

/* The CFA row for `pc` in object `o`, into ctx->row. */
static bool row_for_pc(struct col_unwind_ctx *ctx, const struct col_object *o, uint64_t pc)
{
	struct cie c;
	struct rd insns;
	uint64_t start, datarel = rt_addr(o, o->eh_hdr);
	struct col_cfa_row *row = &ctx->row;

	if (!cfi2_still(o) || !find_fde(o, pc, &c, &insns, &start))
		return false;
	memset(row, 0, sizeof(*row));             /* every register: UW_SAME */
	row->cfa_reg = UW_RSP;
	if (!run_cfa(ctx, c.insns, &c, start, UINT64_MAX, row, NULL, datarel))
		return false;
	ctx->init_row = *row;
	if (!run_cfa(ctx, insns, &c, start, pc, row, &ctx->init_row, datarel))
		return false;
	/* Read as a seqlock's reader: the row's bytes, then the fill's
	 * number again (a refill meanwhile: a row of another object). */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (!cfi2_still(o))
		return false;
	if (c.ra_reg != UW_RIP)
		row->reg[UW_RIP] = row->reg[c.ra_reg];
	return row->cfa_reg < UW_NREGS || row->cfa_reg == UW_CFA_EXPR;
}

/* Compress ctx->row into a cacheable rule, if it has the simple shape. */
static bool row_to_rule(const struct col_cfa_row *row, struct col_unwind_rule *rule)
{
	if (row->cfa_reg >= UW_NREGS)
		return false;
	rule->kind = UW_RULE_SIMPLE;
	rule->cfa_reg = (int8_t)row->cfa_reg;
	rule->cfa_off = row->cfa_off;
	rule->saved = rule->undef = 0;
	for (int i = 0; i < 7; i++) {
		const struct col_reg_rule *rr = &row->reg[tracked[i]];
		switch (rr->how) {
		case UW_SAME: rule->save[i] = UW_SAVE_SAME; break;
		case UW_UNDEF: rule->save[i] = UW_SAVE_UNDEF; rule->undef |= 1u << i; break;
		case UW_OFFSET: rule->save[i] = rr->off; rule->saved |= 1u << i; break;
		default: return false;
		}
	}
	if (rule->save[6] == UW_SAVE_UNDEF)
		rule->kind = UW_RULE_END;
	return true;
}

/* Frame-pointer rule: CFA = rbp + 16, ra at CFA - 8, rbp at CFA - 16. */
static void fp_rule(struct col_unwind_rule *rule)
{
	rule->kind = UW_RULE_SIMPLE;
	rule->cfa_reg = UW_RBP;
	rule->cfa_off = 16;
	for (int i = 0; i < 7; i++)
		rule->save[i] = UW_SAVE_SAME;
	rule->save[1] = -16;
	rule->save[6] = -8;
	rule->saved = (1u << 1) | (1u << 6);
	rule->undef = 0;
}

/* Is `v` a return address: inside a known object's text, right after a
 * call instruction (call rel32; call *r/m in its 2- to 7-byte forms)? */
static bool is_return_address(const struct col_object_set *set, uint64_t v)
{
	const struct col_object *o = col_objects_find_sigsafe(set, v - 1);

	if (!o || v - 7 < o->text_lo)
		return false;
	const uint8_t *p = at_rt(o, v);
	if (p[-5] == 0xe8)
		return true;
	for (int len = 2; len <= 7; len++)
		if (p[-len] == 0xff && (p[1 - len] & 0x38) == 0x10)
			return true;
	return false;
}

#define FIND_FP_SPAN 65536         /* bytes above the stack pointer searched */

/* A direct call (call rel32) that returns to `ra` (object `ro`) and goes
 * into `o` elsewhere than `start`: a call of another function than the
 * one whose FDE starts there.  False for an indirect call, or one into
 * another object (a PLT stub's target is not known here). */
static bool calls_another(const struct col_object *ro, uint64_t ra, const struct col_object *o, uint64_t start)
{
	const uint8_t *q = at_rt(ro, ra);

	if (q[-5] != 0xe8)
		return false;
	int32_t rel;
	memcpy(&rel, q - 4, 4);
	uint64_t target = ra + (uint64_t)(int64_t)rel;
	return target != start && target - o->text_lo < o->text_hi - o->text_lo;
}

/* The chain goes on from a frame record find_fp found: the caller that
 * the record's return address `ra` names (object `ro`), its rsp there
 * `cfa` (the callee's CFA) and its rbp `rbp` (rbp_known), must itself
 * return somewhere: its own return address, where its CFI puts it, must
 * follow a call (and a direct call into its object must be one of the
 * caller's function).  A stale record, left in the locals by an earlier
 * call, names a caller whose frame is gone: what lies where its return
 * address would be is a local, a saved register or another stale word.
 * Where the caller's CFI cannot say (no CFI, an expression, a register
 * not known, its outermost frame), the record is kept, as before. */
static bool chain_goes_on(struct col_unwind_ctx *ctx, const struct col_object_set *set,
			  const struct col_object *ro, uint64_t ra, uint64_t cfa, uint64_t rbp, bool rbp_known)
{
	struct cie c;
	struct rd insns;
	uint64_t start, ccfa, cra;

	if (!ro->fde_table || !find_fde(ro, ra - 1, &c, &insns, &start) || !row_for_pc(ctx, ro, ra - 1))
		return true;
	const struct col_cfa_row *row = &ctx->row;
	if (row->cfa_reg == UW_RSP)
		ccfa = cfa + (uint64_t)(int64_t)row->cfa_off;
	else if (row->cfa_reg == UW_RBP && rbp_known)
		ccfa = rbp + (uint64_t)(int64_t)row->cfa_off;
	else
		return true;
	if (row->reg[UW_RIP].how != UW_OFFSET)
		return true;                             /* the outermost frame, or a rule not followed */
	if (ccfa <= cfa || !read_mem(ctx, ccfa + (uint64_t)(int64_t)row->reg[UW_RIP].off, &cra))
		return false;                            /* below its callee, or off the stack */
	if (!is_return_address(set, cra))
		return false;
	return !calls_another(col_objects_find_sigsafe(set, cra - 1), cra, ro, start);
}

/* A frame of the function whose FDE starts at `start` (object `o`), its
 * CFA rbp + cfa_off with the return address at CFA + ra_off and rbp saved
 * at CFA + fp_off (fp_saved), and rbp unknown (ctx->find_fp): the lowest
 * word p above the stack pointer that can be its rbp.  The frame record
 * there must hold a return address (a call instruction before it) whose
 * call, when direct into this object, goes to this function (a stale
 * record in the locals, left by an earlier call of another function, has
 * one into that function), and, when the caller's own CFA is rbp-based
 * there, a saved rbp above p: the caller's frame (a caller that keeps no
 * frame pointer leaves any value in rbp).  The chain must go on past that
 * caller too (chain_goes_on): a record left by an earlier indirect call,
 * which the call's check cannot refuse, names a caller that no longer
 * returns anywhere.  A function reached by a tail
 * call fails the call's check, and the walk ends there as it did without
 * a search.  True and regs' rbp set, or false.  Uses ctx->row. */
static bool find_fp(struct col_unwind_ctx *ctx, const struct col_object_set *set,
		    const struct col_object *o, uint64_t start, int32_t cfa_off, int32_t ra_off,
		    bool fp_saved, int32_t fp_off, struct col_regs *regs)
{
	uint64_t sp = regs->r[UW_RSP];

	for (uint64_t p = (sp + 7) & ~7ull; p - sp < FIND_FP_SPAN; p += 8) {
		uint64_t cfa = p + (uint64_t)(int64_t)cfa_off, ra, saved;
		if (!read_mem(ctx, cfa + (uint64_t)(int64_t)ra_off, &ra))
			return false;                    /* past the stack */
		if (!is_return_address(set, ra))
			continue;
		const struct col_object *ro = col_objects_find_sigsafe(set, ra - 1);
		if (calls_another(ro, ra, o, start))
			continue;                        /* a call of another function */
		bool saved_read = fp_saved && read_mem(ctx, cfa + (uint64_t)(int64_t)fp_off, &saved);
		if (fp_saved && ro->fde_table && row_for_pc(ctx, ro, ra - 1) && ctx->row.cfa_reg == UW_RBP &&
		    (!saved_read || saved <= p))
			continue;                        /* the caller's frame pointer, not above */
		if (!chain_goes_on(ctx, set, ro, ra, cfa, fp_saved ? saved : p, !fp_saved || saved_read))
			continue;                        /* a caller that returns nowhere: stale */
		regs->r[UW_RBP] = p;
		regs->valid |= 1u << UW_RBP;
		return true;
	}
	return false;
}

/* ctx->find_fp, at pc `lookup` of object `o` whose row (ctx->row) needs
 * an rbp not known: find it (find_fp). */
static void find_fp_for_row(struct col_unwind_ctx *ctx, const struct col_object_set *set,
			    const struct col_object *o, uint64_t lookup, struct col_regs *regs)
{
	const struct col_cfa_row *row = &ctx->row;
	struct cie c;
	struct rd insns;
	uint64_t start;

	if (row->cfa_reg != UW_RBP || (regs->valid & (1u << UW_RBP)) || row->reg[UW_RIP].how != UW_OFFSET ||
	    !find_fde(o, lookup, &c, &insns, &start))
		return;
	find_fp(ctx, set, o, start, row->cfa_off, row->reg[UW_RIP].off, row->reg[UW_RBP].how == UW_OFFSET,
		row->reg[UW_RBP].off, regs);
	row_for_pc(ctx, o, lookup);                  /* ctx->row again: the callers' looked at */
}

/* Code without CFI (dynamically generated code, hand-written assembly):
 * interrupted at its leaf, a function that has not pushed anything yet has
 * its return address at rsp, which frame pointers would skip; anywhere
 * else the frame-pointer chain. */
static void no_cfi_rule(const struct col_unwind_ctx *ctx, const struct col_object_set *set,
			const struct col_regs *regs, bool leaf, struct col_unwind_rule *rule)
{
	uint64_t top;

	fp_rule(rule);
	if (leaf && (regs->valid & (1u << UW_RSP)) && read_mem(ctx, regs->r[UW_RSP], &top) &&
	    is_return_address(set, top)) {
		rule->cfa_reg = UW_RSP;
		rule->cfa_off = 8;
		rule->save[1] = UW_SAVE_SAME;
		rule->saved = 1u << 6;
	}
}

/* In an object without any CFI (Go's code, which keeps frame pointers
 * instead), a frame pointer of 0 where the frame-pointer rule would apply
 * is the chain's end: the runtime's first frames (goexit, mstart) clear it,
 * as the ABI's _start does. */
static bool rule_is_fp_end(const struct col_unwind_ctx *ctx, const struct col_object_set *set,
			   const struct col_regs *regs, bool leaf)
{
	struct col_unwind_rule rule;

	no_cfi_rule(ctx, set, regs, leaf, &rule);
	return rule.cfa_reg == UW_RBP && (regs->valid & (1u << UW_RBP)) && regs->r[UW_RBP] == 0;
}

/* Does a simple rule read the return address at CFA - 8 (where x86-64's
 * CFI almost always keeps it), or none (the outermost frame's)? */
static inline bool ra_at_cfa_minus_8(const struct col_unwind_rule *rule)
{
	return rule->kind == UW_RULE_END || ((rule->saved >> 6 & 1) && rule->save[6] == -8);
}

/* Apply a simple rule: only the registers it saved are read.  Returns 1
 * (next frame), 0 (outermost frame), -1 (bad frame). */
static int apply_rule(const struct col_unwind_ctx *ctx, const struct col_unwind_rule *rule,
		      struct col_regs *regs)
{
	if (rule->kind == UW_RULE_END)
		return 0;
	if (!(regs->valid & (1u << rule->cfa_reg)))
		return -1;
	uint64_t cfa = regs->r[rule->cfa_reg] + (uint64_t)(int64_t)rule->cfa_off;
	for (uint32_t m = rule->saved; m; m &= m - 1) {
		int i = __builtin_ctz(m);
		if (!read_mem(ctx, cfa + (uint64_t)(int64_t)rule->save[i], &regs->r[tracked[i]]))
			return -1;
	}
	for (uint32_t m = rule->undef; m; m &= m - 1)
		regs->r[tracked[__builtin_ctz(m)]] = 0;
	regs->r[UW_RSP] = cfa;
	/* Only callee-saved registers survive a call. */
	regs->valid &= (1u << UW_RBX) | (1u << UW_RBP) | (1u << UW_R12) | (1u << UW_R13) |
		       (1u << UW_R14) | (1u << UW_R15);
	regs->valid |= (1u << UW_RSP) | (1u << UW_RIP);
	return 1;
}

/* Apply a general row (expressions, register rules).  Same returns. */
static int apply_row(const struct col_unwind_ctx *ctx, const struct col_object *o,
		     const struct col_cfa_row *row, struct col_regs *regs)
{
	uint64_t cfa, nv[UW_NREGS];
	uint32_t nvalid = 0;

	if (row->reg[UW_RIP].how == UW_UNDEF)
		return 0;
	if (row->cfa_reg == UW_CFA_EXPR) {
		if (!row->cfa_expr || !eval_expr(ctx, o, row->cfa_expr, regs, false, 0, &cfa))
			return -1;
	} else {
		if (!(regs->valid & (1u << row->cfa_reg)))
			return -1;
		cfa = regs->r[row->cfa_reg] + (uint64_t)(int64_t)row->cfa_off;
	}
	for (int i = 0; i < UW_NREGS; i++) {
		const struct col_reg_rule *rr = &row->reg[i];
		uint64_t addr;
		switch (rr->how) {
		case UW_SAME:
			nv[i] = regs->r[i];
			if (regs->valid & (1u << i))
				nvalid |= 1u << i;
			break;
		case UW_UNDEF:
			nv[i] = 0;
			break;
		case UW_OFFSET:
			if (!read_mem(ctx, cfa + (uint64_t)(int64_t)rr->off, &nv[i]))
				return -1;
			nvalid |= 1u << i;
			break;
		case UW_VAL_OFFSET:
			nv[i] = cfa + (uint64_t)(int64_t)rr->off;
			nvalid |= 1u << i;
			break;
		case UW_REGISTER:
			nv[i] = regs->r[rr->reg];
			if (regs->valid & (1u << rr->reg))
				nvalid |= 1u << i;
			break;
		case UW_EXPR:
			if (!rr->expr || !eval_expr(ctx, o, rr->expr, regs, true, cfa, &addr) ||
			    !read_mem(ctx, addr, &nv[i]))
				return -1;
			nvalid |= 1u << i;
			break;
		case UW_VAL_EXPR:
			if (!rr->expr || !eval_expr(ctx, o, rr->expr, regs, true, cfa, &nv[i]))
				return -1;
			nvalid |= 1u << i;
			break;
		}
	}
	memcpy(regs->r, nv, sizeof(nv));
	regs->r[UW_RSP] = cfa;
	regs->valid = nvalid | (1u << UW_RSP);
	if (!(nvalid & (1u << UW_RIP)))
		return -1;
	return 1;
}

/* ---- signal frames ------------------------------------------------------- */

void col_regs_from_ucontext(const void *ucontext, struct col_regs *regs)
{
	const ucontext_t *uc = ucontext;
	const greg_t *g = uc->uc_mcontext.gregs;

	regs->r[UW_RAX] = (uint64_t)g[REG_RAX];
	regs->r[UW_RDX] = (uint64_t)g[REG_RDX];
	regs->r[UW_RCX] = (uint64_t)g[REG_RCX];
	regs->r[UW_RBX] = (uint64_t)g[REG_RBX];
	regs->r[UW_RSI] = (uint64_t)g[REG_RSI];
	regs->r[UW_RDI] = (uint64_t)g[REG_RDI];
	regs->r[UW_RBP] = (uint64_t)g[REG_RBP];
	regs->r[UW_RSP] = (uint64_t)g[REG_RSP];
	regs->r[UW_R8] = (uint64_t)g[REG_R8];
	regs->r[UW_R9] = (uint64_t)g[REG_R9];
	regs->r[UW_R10] = (uint64_t)g[REG_R10];
	regs->r[UW_R11] = (uint64_t)g[REG_R11];
	regs->r[UW_R12] = (uint64_t)g[REG_R12];
	regs->r[UW_R13] = (uint64_t)g[REG_R13];
	regs->r[UW_R14] = (uint64_t)g[REG_R14];
	regs->r[UW_R15] = (uint64_t)g[REG_R15];
	regs->r[UW_RIP] = (uint64_t)g[REG_RIP];
	regs->valid = (1u << UW_NREGS) - 1;
}

/* Is `pc` the rt_sigreturn trampoline (mov $15,%rax; syscall)? */
static bool is_sigreturn(const struct col_object *o, uint64_t pc)
{
	static const uint8_t code[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

	return o && pc >= o->text_lo && pc + sizeof(code) <= o->text_hi &&
	       memcmp(at_rt(o, pc), code, sizeof(code)) == 0;
}

bool col_unwind_is_sigreturn_sigsafe(uint64_t pc)
{
	const struct col_object_set *set = col_objects_current_sigsafe();

	return set && is_sigreturn(col_objects_find_sigsafe(set, pc), pc);
}

bool col_unwind_in_sigreturn_sigsafe(uint64_t pc)
{
	const struct col_object_set *set = col_objects_current_sigsafe();
	const struct col_object *o = set ? col_objects_find_sigsafe(set, pc) : NULL;

	/* at its mov, or at its syscall (7 bytes on) */
	return o && (is_sigreturn(o, pc) || (pc >= o->text_lo + 7 && is_sigreturn(o, pc - 7)));
}

/* Registers saved by the kernel in the signal frame at `uc_addr`. */
static bool regs_from_sigframe(const struct col_unwind_ctx *ctx, uint64_t uc_addr,
			       struct col_regs *regs)
{
	static const uint8_t map[UW_NREGS] = {
		[UW_RAX] = REG_RAX, [UW_RDX] = REG_RDX, [UW_RCX] = REG_RCX, [UW_RBX] = REG_RBX,
		[UW_RSI] = REG_RSI, [UW_RDI] = REG_RDI, [UW_RBP] = REG_RBP, [UW_RSP] = REG_RSP,
		[UW_R8] = REG_R8, [UW_R9] = REG_R9, [UW_R10] = REG_R10, [UW_R11] = REG_R11,
		[UW_R12] = REG_R12, [UW_R13] = REG_R13, [UW_R14] = REG_R14, [UW_R15] = REG_R15,
		[UW_RIP] = REG_RIP,
	};
	uint64_t gregs = uc_addr + offsetof(ucontext_t, uc_mcontext.gregs);

	for (int i = 0; i < UW_NREGS; i++)
		if (!read_mem(ctx, gregs + 8u * map[i], &regs->r[i]))
			return false;
	regs->valid = (1u << UW_NREGS) - 1;
	return true;
}

/* ---- the walk ------------------------------------------------------------ */

/* The rule cache: COL_UNWIND_CACHE entries in the thread's state, direct
 * mapped by pc.  A thread that walks many distinct stacks through a large
 * program misses it over and over: cc1 under -H (one compile, 164,000
 * traced walks) missed 101,425 times, each a binary search of the
 * .eh_frame_hdr table and two CFA programs run, ~2,300 instructions
 * (callgrind): 46% of the walks' instructions.  Past COL_UNWIND_GROW_AFTER
 * misses of its traced walks the thread maps COL_UNWIND_BIG entries (384
 * KiB, touched as used) and uses them instead: 23,795 misses, cc1's
 * instructions -4.1%.  Threads that miss less keep only the state's
 * entries, with no mapping.  At most COL_UNWIND_BIG_MAX threads of a
 * process have one (big_caches): a server of 500 threads under -H would
 * otherwise hold 190 MiB of them.  A new object set empties the cache by
 * starting a new epoch (an entry is there only if stored in the current
 * one): no 384 KiB memset in the handler that meets the new set, and no
 * munmap, which from the signal handler's walk is a TLB shootdown of every
 * thread; only when the epoch wraps (2^32 object sets) is it wiped.  It is
 * given back at thread end, and a fork child gives back the parent's other
 * threads' (col_thread.c). */
#define BIG_BITS 13
_Static_assert(COL_UNWIND_BIG == 1u << BIG_BITS, "cache_slot uses BIG_BITS bits");
_Static_assert(COL_UNWIND_CACHE == 512, "cache_slot uses 9 bits");
#define BIG_BYTES (COL_UNWIND_BIG * sizeof(struct col_unwind_rule))

static _Atomic int big_caches;      /* mapped now, in this process */

static struct col_unwind_rule *cache_slot(const struct col_unwind_ctx *ctx, uint64_t pc)
{
	uint64_t h = pc * 0x9e3779b97f4a7c15ull;

	if (ctx->big)
		return &ctx->big[h >> (64 - BIG_BITS)];
	return (struct col_unwind_rule *)&ctx->cache[h >> (64 - 9)];
}

/* Count a traced walk's miss; past the bound, map the big cache and move
 * the state's entries into it (a failed mapping is tried again after as
 * many misses). */
static void count_miss(struct col_unwind_ctx *ctx)
{
	if (ctx->big || ++ctx->misses <= COL_UNWIND_GROW_AFTER)
		return;
	ctx->misses = 0;
	if (atomic_fetch_add(&big_caches, 1) >= COL_UNWIND_BIG_MAX) {
		atomic_fetch_sub(&big_caches, 1);   /* asked again after as many misses */
		return;
	}
	/* The kernel's own call: this file is the outside mode's too, which
	 * never grows (no traced walks), and has no col_real. */
	long p = exp_syscall(SYS_mmap, NULL, BIG_BYTES, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == -1) {
		atomic_fetch_sub(&big_caches, 1);
		return;
	}
	struct col_unwind_rule *big = (struct col_unwind_rule *)p;
	ctx->big = big;
	for (int i = 0; i < COL_UNWIND_CACHE; i++)
		if (ctx->cache[i].pc && ctx->cache[i].epoch == ctx->epoch)
			*cache_slot(ctx, ctx->cache[i].pc) = ctx->cache[i];
}

/* Is `rule` (a cache slot) the cached rule of `pc`? */
static inline bool cached(const struct col_unwind_ctx *ctx, const struct col_unwind_rule *rule,
			  uint64_t pc)
{
	return rule->pc == pc && rule->epoch == ctx->epoch;
}

/* Empty the cache (a new object set), the big one kept mapped: a new epoch,
 * or a wipe when the epoch wraps to an old one's number. */
static void cache_clear(struct col_unwind_ctx *ctx)
{
	if (++ctx->epoch != 0)
		return;
	memset(ctx->cache, 0, sizeof(ctx->cache));
	if (ctx->big)
		memset(ctx->big, 0, BIG_BYTES);
	ctx->epoch = 1;
}

uint32_t col_unwind_cached_rules(const struct col_unwind_ctx *ctx)
{
	const struct col_unwind_rule *r = ctx->big ? ctx->big : ctx->cache;
	uint32_t n = 0;

	for (uint32_t i = 0; i < (ctx->big ? COL_UNWIND_BIG : COL_UNWIND_CACHE); i++)
		n += r[i].pc && r[i].epoch == ctx->epoch;
	return n;
}

void col_unwind_release_sigsafe(struct col_unwind_ctx *ctx)
{
	if (ctx->big) {
		exp_syscall(SYS_munmap, ctx->big, BIG_BYTES);
		atomic_fetch_sub(&big_caches, 1);
	}
	ctx->big = NULL;
	ctx->misses = 0;
}

int col_unwind_big_caches(void)
{
	return atomic_load(&big_caches);
}

bool col_unwind_cfa_cached_sigsafe(const struct col_unwind_ctx *ctx, uint64_t generation,
				   uint64_t ra, uint64_t sp, uint64_t fp, uint64_t *cfa, bool *by_fp)
{
	const struct col_unwind_rule *rule = cache_slot(ctx, ra - 1);

	if (ctx->generation != generation || !cached(ctx, rule, ra - 1) || rule->kind != UW_RULE_SIMPLE)
		return false;
	if (rule->cfa_reg == UW_RSP)
		*cfa = sp + (uint64_t)(int64_t)rule->cfa_off;
	else if (rule->cfa_reg == UW_RBP)
		*cfa = fp + (uint64_t)(int64_t)rule->cfa_off;
	else
		return false;
	*by_fp = rule->cfa_reg == UW_RBP;
	return true;
}

bool col_unwind_words_read_sigsafe(const struct col_unwind_ctx *ctx, const struct col_unwind_word *w,
				   uint32_t i, uint32_t n)
{
	for (; i < n; i++) {
		uint64_t v;
		if (!read_mem(ctx, w[i].slot, &v) || v != w[i].want)
			return false;
	}
	return true;
}

/* Frames k+1.. from the previous stack, if frame k (CFA `cfa`, return
 * address `ra`) is one of its frames and every later return address is still
 * in place.  Returns the index j of the matching previous frame, or -1. */
static int reuse_from(const struct col_unwind_ctx *ctx, const struct col_unwind_prev *prev,
		      uint64_t cfa, uint64_t ra)
{
	int lo = 0, hi = prev->n - 1;     /* frames with a caller have a CFA */

	while (lo < hi) {                  /* CFAs grow toward the root */
		int mid = (lo + hi) / 2;
		if (prev->cfa[mid] < cfa)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= prev->n - 1 || prev->cfa[lo] != cfa || prev->pcs[lo + 1] != ra)
		return -1;
	/* The outer words, as col_unwind_words_hold_sigsafe reads them: the
	 * CFAs rise (each walk's step refuses one that does not), so when the
	 * first and the last are in the thread's stack all are, and they are
	 * compared with no check each and no branch on their values. */
	int first = lo + 1, last = prev->n - 2;
	uint64_t base = ctx->stack_lo, span = ctx->stack_hi - ctx->stack_lo, differ = 0;
	if (first <= last && !ctx->stack_copy && span >= 8 && prev->cfa[first] - 8 - base <= span - 8 &&
	    prev->cfa[last] - 8 - base <= span - 8) {
		for (int i = first; i <= last; i++) {
			uint64_t v;
			memcpy(&v, (const void *)(uintptr_t)(prev->cfa[i] - 8), 8);
			differ |= v ^ prev->pcs[i + 1];
		}
		return differ ? -1 : lo;
	}
	for (int i = first; i <= last; i++) {
		uint64_t v;
		if (!read_mem(ctx, prev->cfa[i] - 8, &v) || v != prev->pcs[i + 1])
			return -1;
	}
	return lo;
}

static int walk(struct col_unwind_ctx *ctx, struct col_regs *regs, bool exact,
		struct col_unwind_prev *prev, uint64_t *pcs, int max, int *truncated, int *broken)
{
	const struct col_object_set *set = col_objects_current_sigsafe();
	int n = 0, end = 0, prev_end = prev ? prev->end : 0;

	*truncated = *broken = 0;
	ctx->first_sigframe = -1;
	bool ra_at_cfa = true;              /* every rule so far read the RA at CFA - 8 */
	if (prev) {
		prev->end = 0;                  /* until this walk says */
		prev->ra_at_cfa = false;
	}
	if (!set)
		return 0;
	if (ctx->generation != set->generation) {
		cache_clear(ctx);
		ctx->generation = set->generation;
		if (prev)
			prev->n = 0;
	}
	for (;;) {
		uint64_t pc = regs->r[UW_RIP];
		uint64_t sp = regs->r[UW_RSP];

		if (pc == 0) {
			end = 2;                        /* outermost frame */
			break;
		}
		if (n == max) {
			*truncated = 1;
			break;
		}
		pcs[n++] = pc;
		if (ctx->cfa_out && n <= ctx->cfa_max)
			ctx->cfa_out[n - 1] = 0;        /* until the step below */
		uint64_t lookup = exact ? pc : pc - 1;
		struct col_unwind_rule *slot = cache_slot(ctx, lookup);
		int rc;

		/* A cached rule is never a signal frame's (those use DWARF
		 * expressions, which are not cached). */
		if (cached(ctx, slot, lookup) && !(ctx->find_fp && slot->cfa_reg == UW_RBP &&
					     !(regs->valid & (1u << UW_RBP)))) {
			ra_at_cfa &= ra_at_cfa_minus_8(slot);
			rc = apply_rule(ctx, slot, regs);
			goto next;
		}
		const struct col_object *o = col_objects_find_sigsafe(set, lookup);
		if (!exact && is_sigreturn(o, pc)) {
			/* Return into the signal trampoline: the frame below is
			 * the interrupted context, saved at the current rsp. */
			if (ctx->first_sigframe < 0)
				ctx->first_sigframe = n - 1;
			if (!regs_from_sigframe(ctx, sp, regs)) {
				*broken = 1;
				break;
			}
			exact = true;
			if (prev)
				prev = NULL;            /* no reuse across signal frames */
			continue;
		}

		struct col_unwind_rule rule;
		if (prev) {
			count_miss(ctx);
			slot = cache_slot(ctx, lookup);
		}
		if (o && o->fde_table && row_for_pc(ctx, o, lookup)) {
			if (__builtin_expect(ctx->find_fp, 0))
				find_fp_for_row(ctx, set, o, lookup, regs);
			if (row_to_rule(&ctx->row, &rule)) {
				rule.pc = lookup;
				rule.epoch = ctx->epoch;
				*slot = rule;
				ra_at_cfa &= ra_at_cfa_minus_8(&rule);
				rc = apply_rule(ctx, &rule, regs);
			} else {
				ra_at_cfa = false;
				rc = apply_row(ctx, o, &ctx->row, regs);
			}
		} else if (o && !o->fde_table && rule_is_fp_end(ctx, set, regs, exact)) {
			rc = 0;                         /* the frame-pointer chain's end */
		} else {
			no_cfi_rule(ctx, set, regs, exact, &rule);
			ra_at_cfa &= ra_at_cfa_minus_8(&rule);
			rc = apply_rule(ctx, &rule, regs);
		}
next:
		if (rc == 0) {
			end = 1;
			break;
		}
		if (rc < 0 || regs->r[UW_RSP] <= sp) {
			if (regs->r[UW_RIP] != 0 || rc < 0)
				*broken = 1;
			break;
		}
		exact = false;
		if (ctx->cfa_out && n <= ctx->cfa_max)
			ctx->cfa_out[n - 1] = regs->r[UW_RSP];
		if (!prev)
			continue;
		prev->cur_cfa[n - 1] = regs->r[UW_RSP];
		int j = prev->n > 1 ? reuse_from(ctx, prev, regs->r[UW_RSP], regs->r[UW_RIP]) : -1;
		if (j < 0)
			continue;
		/* Frames n.. are the previous stack's j+1..: shift them into
		 * place, then put the new frames 0..n-1 before them. */
		int tail = prev->n - (j + 1);
		if (n + tail > max) {
			tail = max - n;
			*truncated = 1;
		} else {
			*truncated = prev->truncated;
		}
		*broken = prev->broken;
		if (n != j + 1) {
			memmove(&prev->pcs[n], &prev->pcs[j + 1], (size_t)tail * 8);
			memmove(&prev->cfa[n], &prev->cfa[j + 1], (size_t)tail * 8);
		}
		memcpy(prev->cfa, prev->cur_cfa, (size_t)n * 8);
		memcpy(prev->pcs, pcs, (size_t)n * 8);
		memcpy(&pcs[n], &prev->pcs[n], (size_t)tail * 8);
		n += tail;
		prev->n = n;
		prev->truncated = *truncated;
		prev->broken = *broken;
		prev->end = prev_end;           /* its outer frames, so its end */
		prev->ra_at_cfa = ra_at_cfa;    /* the tail's words: checked by reuse_from */
		return n;
	}
	if (prev) {
		memcpy(prev->pcs, pcs, (size_t)n * 8);
		memcpy(prev->cfa, prev->cur_cfa, (size_t)n * 8);
		prev->n = n;
		prev->truncated = *truncated;
		prev->broken = *broken;
		prev->end = end;
		prev->ra_at_cfa = ra_at_cfa;
	}
	return n;
}

int col_unwind_sigsafe(struct col_unwind_ctx *ctx, struct col_regs *regs,
		       uint64_t *pcs, int max, int *truncated, int *broken)
{
	return walk(ctx, regs, true, NULL, pcs, max, truncated, broken);
}

int col_unwind_traced_sigsafe(struct col_unwind_ctx *ctx, struct col_regs *regs,
			      struct col_unwind_prev *prev, uint64_t *pcs, int max,
			      int *truncated, int *broken)
{
	return walk(ctx, regs, false, prev, pcs, max, truncated, broken);
}
