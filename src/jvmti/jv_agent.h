/* SPDX-License-Identifier: MIT
 *
 * jv_agent.h — what the files of tally's JVMTI agent (libtally-jvmti.so)
 * share.  The agent is loaded by every JVM the target creates (the
 * collector adds -agentpath:, col_interpose_jvm.c) and runs in the JVM's
 * threads; it writes through the collector's tally__java_* functions
 * (col_export.h) and keeps no state of its own beyond this.
 *
 *   jv_agent.c   Agent_OnLoad, the VM, thread, class and code events
 *   jv_anchor.c  where a JavaThread keeps its last Java frame (VMStructs)
 *   jv_names.c   naming the methods seen in samples (JAVA_METHOD records),
 *                on a thread of its own
 *   jv_trace.c   Java heap (SampledObjectAlloc) and monitor contention
 *                (MonitorContendedEnter/Entered) as HEAP and SYNC records
 */
#ifndef TALLY_JV_AGENT_H
#define TALLY_JV_AGENT_H

#include <jvmti.h>
#include <stdint.h>

/* The agent's JVMTI environment (set by Agent_OnLoad). */
extern jvmtiEnv *jv_jvmti;

/* ---- jv_anchor.c ---- */

/* Tell the collector where a JavaThread keeps its last Java frame (from
 * the JVM's VMStructs), on the VMInit thread `thread`. */
void jv_anchor_find(JNIEnv *jni, jthread thread);

/* ---- jv_names.c ---- */

/* Start the naming thread (VMInit, live phase).  0, or -1 (logged). */
int jv_names_start(JNIEnv *jni);
/* Name what is left and stop the thread (VMDeath). */
void jv_names_stop(JNIEnv *jni);

/* ---- jv_trace.c ---- */

/* The capabilities and events of heap and monitor tracing, as the
 * experiment's options ask (tally record -H, -s). */
void jv_trace_capabilities(jvmtiCapabilities *caps);
void jv_trace_callbacks(jvmtiEventCallbacks *cb);
/* Turn them on (VMInit). */
void jv_trace_start(void);

/* The Java stack of the calling thread (in a JVMTI event), as Java frames
 * (exp_records.h) into out[0..max); returns how many (0: none). */
int jv_stack_here(uint64_t *out, int max);

#endif
