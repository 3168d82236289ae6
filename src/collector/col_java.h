/* SPDX-License-Identifier: MIT
 *
 * col_java.h — Java stacks in the clock samples of a JVM's threads: the
 * JVM's AsyncGetCallTrace, called by the signal handler, and the set of
 * Java methods seen in samples, which the JVMTI agent names
 * (src/jvmti/, docs/java.md).
 */
#ifndef TALLY_COL_JAVA_H
#define TALLY_COL_JAVA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/col_state.h"

/* The Java frames a sample may hold (the rest of EXP_MAX_FRAMES is for the
 * machine stack). */
#define COL_JAVA_MAX_FRAMES 512

/* Make the table of methods seen (normal context; idempotent).  0, or -1
 * if it cannot be made. */
int col_java_prepare(void);

/* Start taking Java stacks with `asgct` (the JVM's AsyncGetCallTrace).
 * Normal context, once per process (again after a fork: the table is
 * the parent's).  0, or -1 if the method table cannot be made (no Java
 * stacks then). */
int col_java_start(void *asgct);

/* Where a Java thread's last Java frame is (read by the agent from the
 * JVM's VMStructs): the offset of its JNIEnv in its JavaThread, and of its
 * anchor's last Java sp and pc.  The handler then recovers the samples the
 * JVM gives up on for want of that pc. */
void col_java_anchor(int64_t env_offset, uint64_t sp_offset, uint64_t pc_offset);

/* Is the calling thread a Java thread (`env` its JNIEnv), or no longer
 * (NULL)?  Called by the thread itself. */
void col_java_thread(struct col_thread *t, void *env);

/* In the signal handler: the Java stack of thread t interrupted at `uc`,
 * as Java frames (exp_records.h: EXP_JAVA_FRAME), leaf first, into out[0..room).
 * Returns how many (0 for a thread that is not a Java thread; a Java
 * thread always gets at least its marker); *truncated is set when the Java
 * stack was deeper than room.  Each frame's method goes into the set of
 * methods to name. */
int col_java_frames_sigsafe(struct col_thread *t, void *uc, uint64_t *out, int room,
			    int *truncated);

/* The interpreter's code, [lo, hi) (the agent's DynamicCodeGenerated
 * "Interpreter"), and each method's Method* with its jmethodID (the agent,
 * as it makes the ids): what names an interpreted frame the JVM would not
 * walk.  Normal context (the first call maps the table). */
void col_java_interpreter(uint64_t lo, uint64_t hi);
void col_java_method_ptr(uint64_t method_ptr, uint64_t method_id);
/* Where an interpreted frame's bytecode index is, from the JVM's VMStructs
 * (the agent): a Method*'s ConstMethod* at `const_method_offset`, its
 * bytecodes `const_method_size` bytes into it, their count (u2) at
 * `code_size_offset`.  Without it interpreted frames have no index. */
void col_java_interp_layout(uint64_t const_method_offset, uint64_t const_method_size,
			    uint64_t code_size_offset);
/* Does the interpreter's range hold a known place? (sigsafe) */
bool col_java_has_interpreter_sigsafe(void);

/* In the signal handler, after a sample whose Java stack the JVM would not
 * give: the methods of the interpreter frames among machine frames
 * pcs[0..n) (cfa[i] each frame's CFA, 0: unknown), leaf first, as Java
 * frames of no bytecode index into out[0..room); how many.  HotSpot x86-64
 * keeps an interpreter frame's Method* 3 words below its frame pointer, the
 * CFA less 16: read there (within the thread's stack) and named through
 * col_java_method_ptr's table; the first interpreter frame that cannot be
 * named ends the list (the analyzer pairs them in order). */
int col_java_interp_frames_sigsafe(struct col_thread *t, const uint64_t *pcs, const uint64_t *cfa,
				   int n, uint64_t *out, int room);

/* Note Java frames' methods (a traced event's Java stack) as to be named. */
void col_java_seen_sigsafe(const uint64_t *frames, int n);

/* The next method seen but not yet named, scanning from *pos (start at 0);
 * 0 when there is none left.  col_java_named marks it done. */
uint64_t col_java_unnamed(size_t *pos);
void col_java_named(uint64_t method);

#endif
