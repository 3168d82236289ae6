/* SPDX-License-Identifier: MIT
 *
 * jv_names.c — naming the Java methods seen in samples: for each jmethodID
 * the collector's signal handler met (col_java.c keeps the set), one
 * JAVA_METHOD record with the class, the method's name and signature, its
 * source file and its line table, as the JVM spells them (the analyzer
 * writes them as Java programmers do).
 *
 * Only methods seen are named, so a program that loads 20,000 classes pays
 * for the few hundred methods it runs; the naming happens on an agent
 * thread of its own ("tally-namer", at the lowest priority), every 100 ms,
 * and once more at VMDeath, so that a process killed with SIGKILL loses at
 * most the names of the last 100 ms.  A method whose class was unloaded in
 * between cannot be named: its record says so (EXP_JAVA_METHOD_UNNAMED) and
 * it is counted (java.unnamed-methods).
 */
#include <stdlib.h>
#include <string.h>

#include "collector/col_export.h"
#include "format/exp_records.h"
#include "jvmti/jv_agent.h"

#define PERIOD_MS 100
#define RECORD_MAX 8192        /* a JAVA_METHOD record, at most */
#define NAME_MAX_BYTES 2000    /* of each of its strings */

static jrawMonitorID lock;
static int stopping;           /* under lock */

static void release(void *p)
{
	if (p)
		(*jv_jvmti)->Deallocate(jv_jvmti, p);
}

static int cmp_line(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Append string s (cut to NAME_MAX_BYTES) at *at; its length with the NUL. */
static uint16_t put_str(char *buf, size_t *at, const char *s)
{
	size_t n = s ? strnlen(s, NAME_MAX_BYTES) : 0;

	memcpy(buf + *at, s ? s : "", n);
	buf[*at + n] = 0;
	*at += n + 1;
	return (uint16_t)(n + 1);
}

static void write_method(jmethodID method, uint32_t flags, const char *klass, const char *name,
			 const char *sig, const char *src, const jvmtiLineNumberEntry *table, jint nt)
{
	union {
		struct exp_java_method r;
		char bytes[RECORD_MAX];
	} rec;
	size_t strings = 4 * (NAME_MAX_BYTES + 1);
	uint32_t room = (uint32_t)((RECORD_MAX - sizeof(rec.r) - strings) / 8);
	uint32_t n = nt > 0 ? (uint32_t)nt : 0;

	memset(&rec.r, 0, sizeof(rec.r));
	if (n > room) {
		n = room;
		flags |= EXP_JAVA_METHOD_LINES_CUT;
	}
	for (uint32_t i = 0; i < n; i++) {
		rec.r.lines[2 * i] = (uint32_t)table[i].start_location;
		rec.r.lines[2 * i + 1] = (uint32_t)table[i].line_number;
	}
	qsort(rec.r.lines, n, 8, cmp_line);
	size_t at = sizeof(rec.r) + 8u * n;
	rec.r.flags = flags;
	rec.r.method = (uint64_t)(uintptr_t)method;
	rec.r.nlines = n;
	rec.r.time_ns = tally__now();
	rec.r.class_len = put_str(rec.bytes, &at, klass);
	rec.r.name_len = put_str(rec.bytes, &at, name);
	rec.r.sig_len = put_str(rec.bytes, &at, sig);
	rec.r.src_len = put_str(rec.bytes, &at, src);
	while (at % 8)
		rec.bytes[at++] = 0;
	tally__java_write(EXP_REC_JAVA_METHOD, &rec, (uint32_t)at);
}

static void name_one(JNIEnv *jni, jmethodID method)
{
	jclass klass = NULL;
	char *csig = NULL, *name = NULL, *msig = NULL, *src = NULL;
	jvmtiLineNumberEntry *table = NULL;
	jint nt = 0, mods = 0;

	if ((*jv_jvmti)->GetMethodDeclaringClass(jv_jvmti, method, &klass) != JVMTI_ERROR_NONE ||
	    (*jv_jvmti)->GetClassSignature(jv_jvmti, klass, &csig, NULL) != JVMTI_ERROR_NONE ||
	    (*jv_jvmti)->GetMethodName(jv_jvmti, method, &name, &msig, NULL) != JVMTI_ERROR_NONE) {
		write_method(method, EXP_JAVA_METHOD_UNNAMED, "", "", "", "", NULL, 0);
		tally__count(EXP_CTR_JAVA_UNNAMED, 1);
	} else {
		(*jv_jvmti)->GetMethodModifiers(jv_jvmti, method, &mods);
		if ((*jv_jvmti)->GetSourceFileName(jv_jvmti, klass, &src) != JVMTI_ERROR_NONE)
			src = NULL;
		if ((*jv_jvmti)->GetLineNumberTable(jv_jvmti, method, &nt, &table) != JVMTI_ERROR_NONE)
			nt = 0, table = NULL;
		write_method(method, (mods & 0x100) ? EXP_JAVA_METHOD_NATIVE : 0, csig, name, msig, src,
			     table, nt);
	}
	release(csig);
	release(name);
	release(msig);
	release(src);
	release(table);
	if (klass)
		(*jni)->DeleteLocalRef(jni, klass);
	tally__java_named((uint64_t)(uintptr_t)method);
}

static void name_all(JNIEnv *jni)
{
	size_t pos = 0;
	uint64_t m;

	while ((m = tally__java_unnamed(&pos)) != 0)
		name_one(jni, (jmethodID)(uintptr_t)m);
}

static void JNICALL namer(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
	(void)arg;
	tally__java_thread(NULL);      /* its own work is not the program's */
	(*jvmti)->RawMonitorEnter(jvmti, lock);
	while (!stopping) {
		(*jvmti)->RawMonitorExit(jvmti, lock);
		name_all(jni);
		(*jvmti)->RawMonitorEnter(jvmti, lock);
		if (!stopping)
			(*jvmti)->RawMonitorWait(jvmti, lock, PERIOD_MS);
	}
	(*jvmti)->RawMonitorExit(jvmti, lock);
}

int jv_names_start(JNIEnv *jni)
{
	if ((*jv_jvmti)->CreateRawMonitor(jv_jvmti, "tally-namer", &lock) != JVMTI_ERROR_NONE)
		return -1;
	jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
	jmethodID init = cls ? (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V") : NULL;
	jstring tname = init ? (*jni)->NewStringUTF(jni, "tally-namer") : NULL;
	jthread thread = tname ? (*jni)->NewObject(jni, cls, init, tname) : NULL;
	if (!thread || (*jv_jvmti)->RunAgentThread(jv_jvmti, thread, namer, NULL,
						   JVMTI_THREAD_MIN_PRIORITY) != JVMTI_ERROR_NONE) {
		(*jni)->ExceptionClear(jni);
		tally__log("java", "no naming thread: methods are named at the end only");
		return -1;
	}
	return 0;
}

void jv_names_stop(JNIEnv *jni)
{
	if (lock) {
		(*jv_jvmti)->RawMonitorEnter(jv_jvmti, lock);
		stopping = 1;
		(*jv_jvmti)->RawMonitorNotifyAll(jv_jvmti, lock);
		(*jv_jvmti)->RawMonitorExit(jv_jvmti, lock);
	}
	name_all(jni);                 /* what is left, on the VMDeath thread */
}
