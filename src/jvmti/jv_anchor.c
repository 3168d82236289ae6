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

/* The entry of VMStructs table `table` (gHotSpotVM{Structs,Types,IntConstants})
 * whose name at `name_sym`'s offset is `name` (and, for the structs,
 * whose type at gHotSpotVMStructEntryTypeNameOffset is `type`), or NULL.
 * Each table ends with an entry of no name. */
static const char *vm_entry(const char *table_sym, const char *stride_sym, const char *name_sym,
			    const char *name, const char *type)
{
	int ok = 1;
	char *const *table = dlsym(RTLD_DEFAULT, table_sym);
	uint64_t stride = u64_sym(stride_sym, &ok);
	uint64_t name_at = u64_sym(name_sym, &ok);
	uint64_t type_at = type ? u64_sym("gHotSpotVMStructEntryTypeNameOffset", &ok) : 0;

	if (!ok || !table || !*table || !stride)
		return NULL;
	for (const char *e = *table; ; e += stride) {
		const char *n = *(const char *const *)(const void *)(e + name_at);
		const char *t = type ? *(const char *const *)(const void *)(e + type_at) : n;
		if (!t)
			return NULL;
		if (n && !strcmp(n, name) && (!type || !strcmp(t, type)))
			return e;
	}
}

/* The offset of field `field` of type `type` in VMStructs, or 0. */
static uint64_t field_offset(const char *type, const char *field)
{
	int ok = 1;
	const char *e = vm_entry("gHotSpotVMStructs", "gHotSpotVMStructEntryArrayStride",
				 "gHotSpotVMStructEntryFieldNameOffset", field, type);
	uint64_t at = u64_sym("gHotSpotVMStructEntryOffsetOffset", &ok);

	return e && ok ? *(const uint64_t *)(const void *)(e + at) : 0;
}

/* The size of type `type` in VMStructs' type table, or 0. */
static uint64_t type_size(const char *type)
{
	int ok = 1;
	const char *e = vm_entry("gHotSpotVMTypes", "gHotSpotVMTypeEntryArrayStride",
				 "gHotSpotVMTypeEntryTypeNameOffset", type, NULL);
	uint64_t at = u64_sym("gHotSpotVMTypeEntrySizeOffset", &ok);

	return e && ok ? *(const uint64_t *)(const void *)(e + at) : 0;
}

/* The value of integer constant `name` in VMStructs, or `otherwise`. */
static int64_t int_constant(const char *name, int64_t otherwise)
{
	int ok = 1;
	const char *e = vm_entry("gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntryArrayStride",
				 "gHotSpotVMIntConstantEntryNameOffset", name, NULL);
	uint64_t at = u64_sym("gHotSpotVMIntConstantEntryValueOffset", &ok);

	return e && ok ? *(const int32_t *)(const void *)(e + at) : otherwise;
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
