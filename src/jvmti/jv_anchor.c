/* SPDX-License-Identifier: MIT
 *
 * jv_anchor.c — where a HotSpot JavaThread keeps its last Java frame, for
 * the collector's second try when AsyncGetCallTrace gives up on a thread in
 * the JVM or in native code (col_java.c): the offsets of the anchor's
 * _last_Java_sp and _last_Java_pc in a JavaThread, read from the JVM's own
 * table of its layout (gHotSpotVMStructs, exported for its Serviceability
 * Agent), and of the JNIEnv in a JavaThread, from java.lang.Thread's eetop
 * field (the JavaThread's address) on the VMInit thread.  A JVM without
 * these (not HotSpot) simply gets no second try.  Also where an interpreted
 * frame's bytecode index is (col_java.c names such frames in a recovered
 * stack): a Method*'s ConstMethod, whose bytecodes follow it (its size and
 * code size from the same tables), and the interpreter frame's layout,
 * checked against the one constant of it the JVM exports.  Called once, at
 * VMInit.
 */
#include <dlfcn.h>
#include <string.h>

#include "collector/col_export.h"
#include "jvmti/jv_agent.h"

static uint64_t u64_sym(const char *name, int *ok)
{
	const uint64_t *p = dlsym(RTLD_DEFAULT, name);

	*ok &= p != NULL;
	return p ? *p : 0;
}

/* The offset of field `field` of type `type` in VMStructs, or 0. */
static uint64_t field_offset(const char *type, const char *field)
{
	int ok = 1;
	char *const *table = dlsym(RTLD_DEFAULT, "gHotSpotVMStructs");
	uint64_t stride = u64_sym("gHotSpotVMStructEntryArrayStride", &ok);
	uint64_t type_at = u64_sym("gHotSpotVMStructEntryTypeNameOffset", &ok);
	uint64_t field_at = u64_sym("gHotSpotVMStructEntryFieldNameOffset", &ok);
	uint64_t offset_at = u64_sym("gHotSpotVMStructEntryOffsetOffset", &ok);

	if (!ok || !table || !*table || !stride)
		return 0;
	for (const char *e = *table; ; e += stride) {
		const char *t = *(const char *const *)(const void *)(e + type_at);
		const char *f = *(const char *const *)(const void *)(e + field_at);
		if (!t)
			return 0;
		if (f && !strcmp(t, type) && !strcmp(f, field))
			return *(const uint64_t *)(const void *)(e + offset_at);
	}
}

/* The size of type `type` in VMStructs' type table, or 0. */
static uint64_t type_size(const char *type)
{
	int ok = 1;
	char *const *table = dlsym(RTLD_DEFAULT, "gHotSpotVMTypes");
	uint64_t stride = u64_sym("gHotSpotVMTypeEntryArrayStride", &ok);
	uint64_t name_at = u64_sym("gHotSpotVMTypeEntryTypeNameOffset", &ok);
	uint64_t size_at = u64_sym("gHotSpotVMTypeEntrySizeOffset", &ok);

	if (!ok || !table || !*table || !stride)
		return 0;
	for (const char *e = *table; ; e += stride) {
		const char *t = *(const char *const *)(const void *)(e + name_at);
		if (!t)
			return 0;
		if (!strcmp(t, type))
			return *(const uint64_t *)(const void *)(e + size_at);
	}
}

/* The value of integer constant `name` in VMStructs, or `otherwise`. */
static int64_t int_constant(const char *name, int64_t otherwise)
{
	int ok = 1;
	char *const *table = dlsym(RTLD_DEFAULT, "gHotSpotVMIntConstants");
	uint64_t stride = u64_sym("gHotSpotVMIntConstantEntryArrayStride", &ok);
	uint64_t name_at = u64_sym("gHotSpotVMIntConstantEntryNameOffset", &ok);
	uint64_t value_at = u64_sym("gHotSpotVMIntConstantEntryValueOffset", &ok);

	if (!ok || !table || !*table || !stride)
		return otherwise;
	for (const char *e = *table; ; e += stride) {
		const char *t = *(const char *const *)(const void *)(e + name_at);
		if (!t)
			return otherwise;
		if (!strcmp(t, name))
			return *(const int32_t *)(const void *)(e + value_at);
	}
}

/* HotSpot x86-64 (frame_x86.hpp): below the saved frame pointer, the
 * sender's sp (-1), the last sp (-2), the Method* (-3), the mirror, mdp,
 * cache and locals, then the bytecode pointer (-8 words).  The JVM exports
 * the last sp's offset: a JVM whose layout moved gets no bytecode index. */
static void interp_layout(void)
{
#if defined(__x86_64__)
	uint64_t const_method = field_offset("Method", "_constMethod");
	uint64_t header = type_size("ConstMethod");
	uint64_t code_size = field_offset("ConstMethod", "_code_size");

	if (int_constant("frame::interpreter_frame_last_sp_offset", 0) != -2 || !const_method || !header ||
	    !code_size)
		return;
	tally__java_interp_layout(const_method, header, code_size);
#endif
}

void jv_anchor_find(JNIEnv *jni, jthread thread)
{
	interp_layout();
	uint64_t anchor = field_offset("JavaThread", "_anchor");
	uint64_t sp = field_offset("JavaFrameAnchor", "_last_Java_sp");
	uint64_t pc = field_offset("JavaFrameAnchor", "_last_Java_pc");
	jclass cls = (*jni)->GetObjectClass(jni, thread);
	jfieldID eetop = cls ? (*jni)->GetFieldID(jni, cls, "eetop", "J") : NULL;

	if (!eetop) {
		(*jni)->ExceptionClear(jni);
		return;
	}
	jlong self = (*jni)->GetLongField(jni, thread, eetop);
	if (!anchor || !self || sp == pc)
		return;
	tally__java_anchor((int64_t)((intptr_t)jni - (intptr_t)self), anchor + sp, anchor + pc);
}
