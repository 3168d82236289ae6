/* SPDX-License-Identifier: MIT
 *
 * jv_anchor.c — where a HotSpot JavaThread keeps its last Java frame, for
 * the collector's second try when AsyncGetCallTrace gives up on a thread in
 * the JVM or in native code (col_java.c): the offsets of the anchor's
 * _last_Java_sp and _last_Java_pc in a JavaThread, read from the JVM's own
 * table of its layout (gHotSpotVMStructs, exported for its Serviceability
 * Agent), and of the JNIEnv in a JavaThread, from java.lang.Thread's eetop
 * field (the JavaThread's address) on the VMInit thread.  A JVM without
 * these (not HotSpot) simply gets no second try.  Called once, at VMInit.
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

void jv_anchor_find(JNIEnv *jni, jthread thread)
{
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
