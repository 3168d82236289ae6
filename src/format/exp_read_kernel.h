/* SPDX-License-Identifier: MIT
 *
 * exp_read_kernel.h — kernel.dat (exp_records.h): the kernel's call chains
 * of the ticks a program spent in kernel mode, read into the founder's
 * exp_proc and joined to every process's clock samples.
 */
#ifndef TALLY_EXP_READ_KERNEL_H
#define TALLY_EXP_READ_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "format/exp_data.h"

/* Each takes one record of its type (`rec`, `len` bytes, framing already
 * checked) into p: 0, 1 when the record is wrong (`cause` says why), -1
 * out of memory.  `cap`, `cap2`: the loader's capacities of the arrays. */
int exp_take_kernel_sample(struct exp_proc *p, size_t *cap, size_t *cap2, const void *rec,
			   uint32_t len, char *cause, size_t cause_len);
/* A KERNEL_SWITCH record: as a sample, into p->kswitches. */
int exp_take_kernel_switch(struct exp_proc *p, size_t *cap, size_t *cap2, const void *rec,
			   uint32_t len, char *cause, size_t cause_len);
int exp_take_kernel_sym(struct exp_proc *p, size_t *cap, const void *rec, uint32_t len,
			char *cause, size_t cause_len);
int exp_take_kernel_info(struct exp_proc *p, const void *rec, uint32_t len, char *cause,
			 size_t cause_len);

/* After every process is loaded: each clock sample of every process gets
 * the kernel samples of its thread since the thread's previous clock
 * sample (time in (previous, this]), each `period_ns` of its weight, as
 * samples of their own whose stack is the kernel's chain above the clock
 * sample's (stacks made once per distinct chain and user stack); what is
 * left of its weight stays with the user stack.  0, or -ENOMEM. */
int exp_kernel_join(struct exp_experiment *e);
/* Then each STATE interval with a user stack gets the kernel's chain of
 * its thread's switch out of the CPU that began it (the last KERNEL_SWITCH
 * of the thread after its previous interval's end and not after this
 * one's): its stack becomes that chain above its user stack.  Done by
 * exp_kernel_join. */

void exp_kernel_free(struct exp_proc *p);

#endif
