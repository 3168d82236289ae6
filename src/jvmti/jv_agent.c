/* SPDX-License-Identifier: MIT
 *
 * jv_agent.c — tally's JVMTI agent: Agent_OnLoad and the events that make
 * Java stacks and name the code the JVM generates.
 *
 * What AsyncGetCallTrace needs (the collector calls it in its signal
 * handler, col_java.c): ClassLoad events enabled (it refuses to walk
 * without), and a jmethodID for every method (made here for every class
 * as it is prepared, and at VMInit for those loaded before), since it
 * cannot make one in a signal handler.  Each Java thread's JNIEnv is
 * handed to the collector at ThreadStart (the VMInit thread's too), and
 * its name becomes a THREAD_NAME record.
 *
 * The code: each compiled method's address range at CompiledMethodLoad
 * (JIT_CODE records of kind EXP_JIT_JAVA, JIT_UNLOAD when it goes), the
 * line of each of its instructions the JIT described (the record's line
 * table, from the JVMTI address map and the method's line table), the
 * JVM's own generated code (interpreter, stubs, adapters) at
 * DynamicCodeGenerated (EXP_JIT_JVM_STUB); GenerateEvents replays what
 * was made before the agent asked.  Enabling CompiledMethodLoad also
 * makes the JIT record debug information at every instruction, not only
 * at safepoints (DebugNonSafepoints), which places samples in inlined
 * methods correctly.
 *
 * Nothing is done when the process is not being recorded (the agent named
 * by hand, outside tally record): tally__java_start says so.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "collector/col_export.h"
#include "format/exp_records.h"
#include "jvmti/jv_agent.h"

#include <jvmticmlr.h>           /* after jvmti.h (jv_agent.h): it uses its types */

jvmtiEnv *jv_jvmti;

/* Make the jmethodIDs of a class's methods (AsyncGetCallTrace reports only
 * methods that have one), and tell the collector each one's Method*: in
 * HotSpot a jmethodID points at its Method* (what an interpreter frame
 * holds), which names an interpreted frame the JVM would not walk. */
static void make_method_ids(jclass klass)
{
	jint n;
	jmethodID *methods;

	if ((*jv_jvmti)->GetClassMethods(jv_jvmti, klass, &n, &methods) != JVMTI_ERROR_NONE)
		return;
	for (jint i = 0; i < n; i++)
		if (methods[i])
			tally__java_method_ptr((uint64_t)(uintptr_t)*(void *const *)(void *)methods[i],
					       (uint64_t)(uintptr_t)methods[i]);
	(*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)methods);
}

static void JNICALL on_class_load(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
	(void)jvmti, (void)jni, (void)thread, (void)klass;
}

static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
	(void)jvmti, (void)jni, (void)thread;
	make_method_ids(klass);
}

static void name_thread(jthread thread)
{
	jvmtiThreadInfo info;

	if ((*jv_jvmti)->GetThreadInfo(jv_jvmti, thread, &info) != JVMTI_ERROR_NONE)
		return;
	tally__thread_name(info.name, 1);
	(*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)info.name);
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	(void)jvmti;
	tally__java_thread(jni);
	name_thread(thread);
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	(void)jvmti, (void)jni, (void)thread;
	tally__java_thread(NULL);
}

#define CODE_LINES_MAX 1000     /* of a JIT_CODE record: 8 KiB, as a JAVA_METHOD's */

/* A JIT_CODE record: `name` ("" for a Java method, named by its
 * JAVA_METHOD record instead), and `nlines` pairs (offset, line). */
static void write_code(uint16_t kind, const char *name, const void *addr, jint size, jmethodID method,
		       const uint32_t *lines, uint32_t nlines)
{
	struct {
		struct exp_jit_code r;
		char name[256 + 8 * CODE_LINES_MAX];
	} rec;
	size_t n = strnlen(name, 255), at = (n + 1 + 7) / 8 * 8;

	if (!addr || size <= 0)
		return;
	if (nlines > CODE_LINES_MAX)
		nlines = CODE_LINES_MAX;
	memset(&rec, 0, sizeof(rec.r) + at);
	rec.r.kind = kind;
	rec.r.name_len = (uint16_t)(n + 1);
	rec.r.time_ns = tally__now();
	rec.r.start = (uint64_t)(uintptr_t)addr;
	rec.r.size = (uint64_t)size;
	rec.r.method = (uint64_t)(uintptr_t)method;
	rec.r.nlines = nlines;
	memcpy(rec.name, name, n);
	memcpy(rec.name + at, lines, 8u * nlines);
	tally__java_write(EXP_REC_JIT_CODE, &rec, (uint32_t)(sizeof(rec.r) + at + 8u * nlines));
}

static int cmp_pair(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The line of bytecode index `loc` in a method's line table (the entry
 * that starts last at or before it; the table need not be sorted), 0 when
 * none does. */
static uint32_t table_line(const jvmtiLineNumberEntry *table, jint n, jlocation loc)
{
	uint32_t line = 0;
	jlocation best = -1;

	for (jint t = 0; t < n && loc >= 0; t++)
		if (table[t].start_location <= loc && table[t].start_location > best) {
			best = table[t].start_location;
			line = (uint32_t)table[t].line_number;
		}
	return line;
}

/* The source line of each instruction the JIT described in `map` (its
 * address and the bytecode index of the compiled method itself, what was
 * inlined there aside: HotSpot gives the outermost scope's), through the
 * method's line table, into lines[] as (offset from code, line) by offset,
 * a pair only where the line changes; how many (none when more than max:
 * a part would give the rest of the code its last line). */
static uint32_t code_lines(jvmtiEnv *jvmti, jmethodID method, const void *code, jint size, jint nmap,
			   const jvmtiAddrLocationMap *map, uint32_t *lines, uint32_t max)
{
	jint nt = 0;
	jvmtiLineNumberEntry *table = NULL;
	uint32_t n = 0, k = 0;

	if (!map || nmap <= 0 ||
	    (*jvmti)->GetLineNumberTable(jvmti, method, &nt, &table) != JVMTI_ERROR_NONE || nt <= 0) {
		if (table)
			(*jvmti)->Deallocate(jvmti, (unsigned char *)table);
		return 0;
	}
	for (jint i = 0; i < nmap; i++) {
		if (n == 4 * max) {           /* too long: none rather than a part */
			n = 0;
			break;
		}
		uintptr_t off = (uintptr_t)map[i].start_address - (uintptr_t)code;
		if ((uintptr_t)map[i].start_address < (uintptr_t)code || off >= (uintptr_t)size ||
		    map[i].location < 0)
			continue;
		uint32_t line = table_line(table, nt, map[i].location);
		if (!line)
			continue;
		lines[2 * n] = (uint32_t)off;
		lines[2 * n + 1] = line;
		n++;
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)table);
	qsort(lines, n, 8, cmp_pair);
	for (uint32_t i = 0; i < n; i++)        /* where the line changes */
		if (!k || lines[2 * (k - 1) + 1] != lines[2 * i + 1]) {
			lines[2 * k] = lines[2 * i];
			lines[2 * k + 1] = lines[2 * i + 1];
			k++;
		}
	return k <= max ? k : 0;
}

/* The source line of bytecode index `bci` of `method` (0: not known),
 * through its line table; the last method's table is kept (an inlining
 * record asks the same methods at many places). */
struct line_cache {
	jmethodID method;
	jint n;
	jvmtiLineNumberEntry *table;
};

static uint32_t line_at(jvmtiEnv *jvmti, struct line_cache *lc, jmethodID method, jint bci)
{
	if (lc->method != method) {
		if (lc->table)
			(*jvmti)->Deallocate(jvmti, (unsigned char *)lc->table);
		lc->table = NULL;
		lc->n = 0;
		lc->method = method;
		if ((*jvmti)->GetLineNumberTable(jvmti, method, &lc->n, &lc->table) != JVMTI_ERROR_NONE)
			lc->n = 0;
	}
	return table_line(lc->table, lc->n, bci);
}

#define INLINE_REC_MAX 8192     /* bytes of a JIT_INLINE record: more make more records */

static void flush_inline(uint8_t *buf, size_t len, uint32_t n, const void *code)
{
	struct exp_jit_inline h = { 0, n, (uint64_t)(uintptr_t)code };

	if (!n)
		return;
	memcpy(buf, &h, sizeof(h));
	tally__java_write(EXP_REC_JIT_INLINE, buf, (uint32_t)len);
}

/* What the JIT inlined at each place of the code (JVMTI's compile_info:
 * HotSpot's scopes at each PcDesc, innermost first), as JIT_INLINE records
 * after the code's JIT_CODE, for the frames recovered from it (model_java.c):
 * only the places where something was inlined. */
static void write_inline(jvmtiEnv *jvmti, const void *code, jint size, const void *compile_info)
{
	uint8_t *buf = malloc(INLINE_REC_MAX);  /* compilers' threads post these at once */
	struct line_cache lc = { 0 };

	if (!buf)
		return;
	for (const jvmtiCompiledMethodLoadRecordHeader *h = compile_info; h; h = h->next) {
		if (h->kind != JVMTI_CMLR_INLINE_INFO)
			continue;
		const jvmtiCompiledMethodLoadInlineRecord *r = (const void *)h;
		size_t at = sizeof(struct exp_jit_inline);
		uint32_t n = 0;
		for (jint i = 0; r->pcinfo && i < r->numpcs; i++) {
			const PCStackInfo *pc = &r->pcinfo[i];
			uintptr_t off = (uintptr_t)pc->pc - (uintptr_t)code;
			if (pc->numstackframes < 2 || pc->numstackframes > EXP_JIT_INLINE_DEPTH_MAX ||
			    (uintptr_t)pc->pc < (uintptr_t)code || off >= (uintptr_t)size)
				continue;
			size_t need = sizeof(struct exp_jit_inline_pc) +
				      (size_t)pc->numstackframes * sizeof(struct exp_jit_inline_frame);
			if (at + need > INLINE_REC_MAX) {
				flush_inline(buf, at, n, code);
				at = sizeof(struct exp_jit_inline);
				n = 0;
			}
			struct exp_jit_inline_pc e = { (uint32_t)off, (uint32_t)pc->numstackframes };
			memcpy(buf + at, &e, sizeof(e));
			at += sizeof(e);
			for (jint f = 0; f < pc->numstackframes; f++) {
				struct exp_jit_inline_frame fr = {
					(uint64_t)(uintptr_t)pc->methods[f],
					line_at(jvmti, &lc, pc->methods[f], pc->bcis[f]), 0 };
				memcpy(buf + at, &fr, sizeof(fr));
				at += sizeof(fr);
			}
			n++;
		}
		flush_inline(buf, at, n, code);
	}
	if (lc.table)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)lc.table);
	free(buf);
}

static void JNICALL on_compiled_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
				     const void *code_addr, jint map_length,
				     const jvmtiAddrLocationMap *map, const void *compile_info)
{
	uint64_t frame = EXP_JAVA_FRAME | (uint64_t)(uintptr_t)method;
	uint32_t *lines = malloc(8u * 4 * CODE_LINES_MAX), n = 0;

	if (lines)
		n = code_lines(jvmti, method, code_addr, code_size, map_length, map, lines, CODE_LINES_MAX);
	write_code(EXP_JIT_JAVA, "", code_addr, code_size, method, lines, n);
	free(lines);
	if (code_addr && code_size > 0)
		write_inline(jvmti, code_addr, code_size, compile_info);
	tally__java_seen(&frame, 1);      /* the machine view names its code */
}

static void JNICALL on_compiled_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr)
{
	struct exp_jit_unload rec = { 0, 0, tally__now(), (uint64_t)(uintptr_t)code_addr,
				      (uint64_t)(uintptr_t)method };

	(void)jvmti;
	tally__java_write(EXP_REC_JIT_UNLOAD, &rec, sizeof(rec));
}

static void JNICALL on_code_generated(jvmtiEnv *jvmti, const char *name, const void *address,
				      jint length)
{
	(void)jvmti;
	write_code(EXP_JIT_JVM_STUB, name ? name : "stub", address, length, NULL, NULL, 0);
	if (name && !strcmp(name, "Interpreter") && address && length > 0)
		tally__java_interpreter((uint64_t)(uintptr_t)address, (uint64_t)(uintptr_t)address + (uint64_t)length);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	jint n;
	jclass *classes;

	(void)jvmti;
	if ((*jv_jvmti)->GetLoadedClasses(jv_jvmti, &n, &classes) == JVMTI_ERROR_NONE) {
		for (jint i = 0; i < n; i++) {
			make_method_ids(classes[i]);
			(*jni)->DeleteLocalRef(jni, classes[i]);
		}
		(*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)classes);
	}
	tally__java_thread(jni);
	name_thread(thread);
	void *asgct = dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
	if (!tally__java_start(asgct)) {
		tally__log("java", asgct ? "not collecting: agent idle"
				   : "this JVM has no AsyncGetCallTrace: no Java stacks");
		return;
	}
	jv_anchor_find(jni, thread);
	(*jv_jvmti)->GenerateEvents(jv_jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
	(*jv_jvmti)->GenerateEvents(jv_jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
	jv_trace_start();
	jv_names_start(jni);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
	(void)jvmti;
	jv_names_stop(jni);
}

static void enable(jvmtiEvent ev)
{
	(*jv_jvmti)->SetEventNotificationMode(jv_jvmti, JVMTI_ENABLE, ev, NULL);
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	jvmtiCapabilities caps;
	jvmtiEventCallbacks cb;

	(void)options, (void)reserved;
	if (!tally__collecting())
		return JNI_OK;                 /* not recorded: nothing to do */
	if ((*vm)->GetEnv(vm, (void **)&jv_jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
		tally__log("java", "no JVMTI 1.2 environment: no Java stacks");
		return JNI_OK;
	}
	memset(&caps, 0, sizeof(caps));
	caps.can_get_line_numbers = 1;
	caps.can_get_source_file_name = 1;
	caps.can_generate_compiled_method_load_events = 1;
	jv_trace_capabilities(&caps);
	if ((*jv_jvmti)->AddCapabilities(jv_jvmti, &caps) != JVMTI_ERROR_NONE)
		tally__log("java", "some JVMTI capabilities refused");
	memset(&cb, 0, sizeof(cb));
	cb.VMInit = on_vm_init;
	cb.VMDeath = on_vm_death;
	cb.ClassLoad = on_class_load;
	cb.ClassPrepare = on_class_prepare;
	cb.ThreadStart = on_thread_start;
	cb.ThreadEnd = on_thread_end;
	cb.CompiledMethodLoad = on_compiled_load;
	cb.CompiledMethodUnload = on_compiled_unload;
	cb.DynamicCodeGenerated = on_code_generated;
	jv_trace_callbacks(&cb);
	(*jv_jvmti)->SetEventCallbacks(jv_jvmti, &cb, (jint)sizeof(cb));
	enable(JVMTI_EVENT_VM_INIT);
	enable(JVMTI_EVENT_VM_DEATH);
	enable(JVMTI_EVENT_CLASS_LOAD);
	enable(JVMTI_EVENT_CLASS_PREPARE);
	enable(JVMTI_EVENT_THREAD_START);
	enable(JVMTI_EVENT_THREAD_END);
	enable(JVMTI_EVENT_COMPILED_METHOD_LOAD);
	enable(JVMTI_EVENT_COMPILED_METHOD_UNLOAD);
	enable(JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
	return JNI_OK;
}
