/* SPDX-License-Identifier: MIT
 *
 * jv_trace.c — the Java heap and Java monitors, traced where JVMTI makes it
 * cheap, as the C tracers' records with Java stacks:
 *
 *   -H: the JVM's allocation sampling (SampledObjectAlloc, JDK 11+): about
 *   one object per 512 KiB allocated, each a HEAP record (op EXP_HEAP_JAVA)
 *   whose size is the bytes it stands for, s / (1 - e^(-s/I)) for an
 *   object of s bytes sampled at mean interval I (the sampling is a Poisson
 *   process over bytes, so this estimate of the bytes allocated is
 *   unbiased); heap.count counts the sampled objects.  Objects are not
 *   followed to their collection: no heap.leak for Java.
 *
 *   -s: contended monitor enters (MonitorContendedEnter, then Entered on the
 *   same thread): a SYNC record (op EXP_SYNC_JAVA_MONITOR) with the time
 *   blocked, at or above the -s threshold.
 *
 * Both run in the allocating or blocked thread, inside the JVMTI event, where
 * GetStackTrace of the current thread is allowed.
 */
#include <math.h>
#include <string.h>

#include "collector/col_export.h"
#include "format/exp_records.h"
#include "jvmti/jv_agent.h"

#define SAMPLING_INTERVAL 524288   /* bytes: the JVM's default */
#define MAX_JAVA_FRAMES 512

static int heap_on;
static int64_t sync_threshold_ns = -1;
static __thread uint64_t contended_since;

int jv_stack_here(uint64_t *out, int max)
{
	jvmtiFrameInfo frames[MAX_JAVA_FRAMES];
	jint n = 0;

	if (max > MAX_JAVA_FRAMES)
		max = MAX_JAVA_FRAMES;
	if ((*jv_jvmti)->GetStackTrace(jv_jvmti, NULL, 0, max, frames, &n) != JVMTI_ERROR_NONE)
		return 0;
	int k = 0;
	for (jint i = 0; i < n; i++) {
		uint64_t m = (uint64_t)(uintptr_t)frames[i].method;
		jlocation bci = frames[i].location;
		if (!m || m > EXP_JAVA_METHOD_MASK)
			continue;
		uint64_t field = bci < 0 ? EXP_JAVA_BCI_NATIVE
				 : bci + EXP_JAVA_BCI_BIAS > 0xffff ? 0xffff
				 : (uint64_t)bci + EXP_JAVA_BCI_BIAS;
		out[k++] = EXP_JAVA_FRAME | field << EXP_JAVA_BCI_SHIFT | m;
	}
	return k;
}

static void JNICALL on_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
			     jclass klass, jlong size)
{
	uint64_t frames[MAX_JAVA_FRAMES];
	double s = (double)size, stands_for = s / -expm1(-s / SAMPLING_INTERVAL);

	(void)jvmti, (void)jni, (void)thread, (void)object, (void)klass;
	int n = jv_stack_here(frames, MAX_JAVA_FRAMES);
	if (n < 1 || size <= 0)
		return;
	struct exp_heap rec = { .op = EXP_HEAP_JAVA, .size = (uint64_t)stands_for,
				.addr = UINT64_MAX, .old_addr = (uint64_t)size };
	tally__java_event(EXP_FILE_HEAP, EXP_REC_HEAP, &rec, sizeof(rec), frames, n);
}

static void JNICALL on_contended_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object)
{
	(void)jvmti, (void)jni, (void)thread, (void)object;
	contended_since = tally__now();
}

static void JNICALL on_contended_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
					 jobject object)
{
	uint64_t frames[MAX_JAVA_FRAMES];
	uint64_t now = tally__now(), since = contended_since;

	(void)jvmti, (void)jni, (void)thread, (void)object;
	contended_since = 0;
	if (!since || (int64_t)(now - since) < sync_threshold_ns)
		return;
	int n = jv_stack_here(frames, MAX_JAVA_FRAMES);
	if (n < 1)
		return;
	struct exp_sync rec = { .op = EXP_SYNC_JAVA_MONITOR, .wait_ns = now - since };
	tally__java_event(EXP_FILE_SYNC, EXP_REC_SYNC, &rec, sizeof(rec), frames, n);
}

void jv_trace_capabilities(jvmtiCapabilities *caps)
{
	int64_t sync = tally__trace_option("sync");

	heap_on = tally__trace_option("heap") == 1;
	/* -s without a threshold calibrates for C locks; every contended
	 * monitor enter is a real wait. */
	sync_threshold_ns = sync == -2 ? 0 : sync;
	if (heap_on)
		caps->can_generate_sampled_object_alloc_events = 1;
	if (sync_threshold_ns >= 0)
		caps->can_generate_monitor_events = 1;
}

void jv_trace_callbacks(jvmtiEventCallbacks *cb)
{
	cb->SampledObjectAlloc = on_alloc;
	cb->MonitorContendedEnter = on_contended_enter;
	cb->MonitorContendedEntered = on_contended_entered;
}

void jv_trace_start(void)
{
	if (heap_on && (*jv_jvmti)->SetHeapSamplingInterval(jv_jvmti, SAMPLING_INTERVAL) == JVMTI_ERROR_NONE)
		(*jv_jvmti)->SetEventNotificationMode(jv_jvmti, JVMTI_ENABLE,
						      JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
	if (sync_threshold_ns >= 0) {
		(*jv_jvmti)->SetEventNotificationMode(jv_jvmti, JVMTI_ENABLE,
						      JVMTI_EVENT_MONITOR_CONTENDED_ENTER, NULL);
		(*jv_jvmti)->SetEventNotificationMode(jv_jvmti, JVMTI_ENABLE,
						      JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
	}
}
