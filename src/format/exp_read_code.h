/* SPDX-License-Identifier: MIT
 *
 * exp_read_code.h — reading code.dat (dynamic code and Java methods) and
 * thread names into a loaded process (exp_data.h): the checks of each
 * record's fields, and the copies.  Used by the loader (exp_read_data.c).
 */
#ifndef TALLY_EXP_READ_CODE_H
#define TALLY_EXP_READ_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "format/exp_data.h"

/* Each takes one record of its type (`rec`, `len` bytes, framing already
 * checked) into `p`, growing the array whose capacity is *cap.  Returns 0;
 * 1 when its fields are wrong (`cause` says how, `cause_len` bytes; the
 * record is skipped); -1 when out of memory. */
int exp_take_java_method(struct exp_proc *p, size_t *cap, const void *rec, uint32_t len,
			 char *cause, size_t cause_len);
int exp_take_jit_code(struct exp_proc *p, size_t *cap, const void *rec, uint32_t len,
		      char *cause, size_t cause_len);
/* An EXP_REC_JIT_INLINE: its entries added to the latest compiled Java
 * method at its start, unsorted (exp_jit_inlines_sort).  0, 1 (damage:
 * cause) or -1 (no memory). */
int exp_take_jit_inline(struct exp_proc *p, const void *rec, uint32_t len, char *cause, size_t cause_len);
/* Once every record of p is taken: each compiled method's inline places
 * sorted by offset (of one offset, in file order), as exp_jit_inline_at
 * needs; once, not at each record. */
void exp_jit_inlines_sort(struct exp_proc *p);
int exp_take_jit_unload(struct exp_proc *p, size_t *cap, const void *rec, uint32_t len,
			char *cause, size_t cause_len);
/* A thread name: into `t`, the thread the record names. */
int exp_take_thread_name(struct exp_thread_ev *t, const void *rec, uint32_t len, char *cause,
			 size_t cause_len);

/* After loading: dynamic code events sorted by time (then file order), Java
 * methods by id (a method named twice keeps its first full name). */
void exp_code_sort(struct exp_proc *p);

void exp_code_free(struct exp_proc *p);

#endif
