/* SPDX-License-Identifier: MIT
 *
 * col_interpose_jvm.c — a JVM's way in: JNI_CreateJavaVM() interposed so
 * that every JVM the target creates loads tally's JVMTI agent
 * (libtally-jvmti.so, beside this library), with the program's own options
 * kept; dlsym() lookups in a handle (col_dlsym.S) so that a launcher that
 * finds JNI_CreateJavaVM in libjvm.so's handle (the java command) calls
 * ours too; and pthread_setname_np(), whose names become THREAD_NAME
 * records (the JVM names its GC and compiler threads after they start).
 * The agent's own calls into the collector are in col_api_java.c.
 *
 * The agent goes in as the first option, `-agentpath:`, so the program's
 * own -agentpath and JAVA_TOOL_OPTIONS are untouched; with it goes
 * -XX:+PreserveFramePointer, which keeps the frame-pointer chain through
 * JIT-compiled code (the machine view's stacks need it; perf's Java support
 * asks for it too), unless the program sets that flag itself or the JVM is
 * older than JDK 9 (docs/java.md).  Called from any thread of the target.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/col_fds.h"
#include "collector/col_init.h"
#include "collector/col_log.h"
#include "collector/col_real.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_thread.h"

#define AGENT_NAME "libtally-jvmti.so"

/* JNI's invocation interface (jni.h, stable since JNI 1.2), without jni.h:
 * tally builds without a JDK. */
struct jvm_option {
	char *optionString;
	void *extraInfo;
};
struct jvm_init_args {
	int32_t version;
	int32_t nOptions;
	struct jvm_option *options;
	uint8_t ignoreUnrecognized;
};
typedef int32_t (*create_vm_fn)(void **pvm, void **penv, void *args);

/* ---- dlsym (col_dlsym.S) ------------------------------------------------- */

typedef void *(*dlsym_fn)(void *, const char *);
void *(*col_dlsym_real)(void *, const char *);    /* read by col_dlsym.S */
void *col_dlsym_resolve(void);
void *col_dlsym_handle(void *handle, const char *name);

static _Atomic(create_vm_fn) real_create_vm;

/* The real dlsym: libc's, the next definition after ours. */
void *col_dlsym_resolve(void)
{
	dlsym_fn fn = col_real_dlsym();

	__atomic_store_n(&col_dlsym_real, fn, __ATOMIC_RELEASE);
	return (void *)fn;
}

int32_t JNI_CreateJavaVM(void **pvm, void **penv, void *args) __attribute__((visibility("default")));

/* A lookup in a handle: the real one's answer, but ours for JNI_CreateJavaVM
 * (the one it found is called by ours). */
void *col_dlsym_handle(void *handle, const char *name)
{
	dlsym_fn real = __atomic_load_n(&col_dlsym_real, __ATOMIC_ACQUIRE);
	void *sym = (real ? real : (dlsym_fn)col_dlsym_resolve())(handle, name);

	if (sym && name && !strcmp(name, "JNI_CreateJavaVM") && sym != (void *)JNI_CreateJavaVM) {
		atomic_store(&real_create_vm, (create_vm_fn)sym);
		return (void *)JNI_CreateJavaVM;
	}
	return sym;
}

/* ---- JNI_CreateJavaVM ---------------------------------------------------- */

/* "-agentpath:DIR/libtally-jvmti.so", DIR this library's; NULL (logged
 * once) if the agent was not built. */
static const char *agent_option(void)
{
	static char opt[4200];
	Dl_info info;

	if (opt[0])
		return opt;
	if (!dladdr((void *)agent_option, &info) || !info.dli_fname)
		return NULL;
	const char *slash = strrchr(info.dli_fname, '/');
	size_t dir = slash ? (size_t)(slash - info.dli_fname) : 0;
	if (dir + sizeof(AGENT_NAME) + 16 > sizeof(opt))
		return NULL;
	char path[4200];
	memcpy(path, info.dli_fname, dir);
	memcpy(path + dir, dir ? "/" AGENT_NAME : AGENT_NAME, sizeof(AGENT_NAME) + 1);
	if (access(path, R_OK) != 0) {
		col_log_sigsafe("java", "the JVMTI agent " AGENT_NAME " was not built (no jvmti.h when "
			       "tally was built): no Java stacks");
		return NULL;
	}
	memcpy(opt, "-agentpath:", 11);
	memcpy(opt + 11, path, strlen(path) + 1);
	return opt;
}

static bool mentions(const char *s, const char *what)
{
	return s && strstr(s, what);
}

/* The JVM's major version from the `release` file of the JDK holding
 * libjvm.so at `lib` (JDK 9 and later: HOME/lib/server/libjvm.so); 0 when
 * unknown (JDK 8 has another layout). */
static int jvm_major(const char *lib)
{
	char path[4200], buf[4096];
	size_t n = strlen(lib);

	if (n + 16 > sizeof(path))
		return 0;
	memcpy(path, lib, n + 1);
	for (int up = 0; up < 3; up++) {
		char *slash = strrchr(path, '/');
		if (!slash)
			return 0;
		*slash = 0;
	}
	memcpy(path + strlen(path), "/release", 9);
	/* Aside (col_fds_read): the program's threads may be opening files. */
	if (col_fds_read(path, buf, sizeof(buf)) <= 0)
		return 0;
	const char *v = strstr(buf, "JAVA_VERSION=\"");
	return v ? atoi(v + 14) : 0;
}

/* Keep the frame pointers of JIT-compiled code, unless the program said
 * otherwise or the JVM may not know the flag. */
static bool want_frame_pointers(const struct jvm_init_args *in, create_vm_fn real)
{
	static const char *const envs[] = { "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS" };
	Dl_info info;

	for (int32_t i = 0; i < in->nOptions; i++)
		if (mentions(in->options[i].optionString, "PreserveFramePointer"))
			return false;
	for (size_t i = 0; i < sizeof(envs) / sizeof(envs[0]); i++)
		if (mentions(getenv(envs[i]), "PreserveFramePointer"))
			return false;
	if (!dladdr((void *)real, &info) || !info.dli_fname || jvm_major(info.dli_fname) < 9) {
		col_log_sigsafe("java.frame-pointers", "not asked: JVM older than 9 or of unknown version");
		return false;
	}
	return true;
}

COL_API int32_t JNI_CreateJavaVM(void **pvm, void **penv, void *args)
{
	create_vm_fn real = atomic_load(&real_create_vm);
	struct jvm_init_args *in = args;

	if (!real) {
		real = (create_vm_fn)dlsym(RTLD_NEXT, "JNI_CreateJavaVM");
		if (!real)
			return -1;     /* JNI_ERR: no JVM behind us */
	}
	col_ensure_init();
	/* JNI 1.2 arguments and later (JDK1_1InitArgs is another structure). */
	const char *agent = col_proc.active && col_proc.opt.java && in && in->version >= 0x00010002 &&
				    in->nOptions >= 0 ? agent_option() : NULL;
	for (int32_t i = 0; agent && i < in->nOptions; i++)
		if (mentions(in->options[i].optionString, AGENT_NAME))
			agent = NULL;  /* the program loads it itself */
	if (!agent)
		return real(pvm, penv, args);
	/* Ours first: the program's options come after and win. */
	struct jvm_option *opts = malloc(((size_t)in->nOptions + 2) * sizeof(*opts));
	if (!opts) {
		col_log_error_sigsafe("java options", ENOMEM, "no Java stacks");
		return real(pvm, penv, args);
	}
	int32_t n = 0;
	opts[n++] = (struct jvm_option){ (char *)agent, NULL };
	if (want_frame_pointers(in, real))
		opts[n++] = (struct jvm_option){ (char *)"-XX:+PreserveFramePointer", NULL };
	memcpy(opts + n, in->options, (size_t)in->nOptions * sizeof(*opts));
	struct jvm_init_args ours = *in;
	ours.nOptions = in->nOptions + n;
	ours.options = opts;
	col_log_sigsafe("java.agent", agent + 11);
	col_log_sigsafe("java.frame-pointers", n > 1 ? "-XX:+PreserveFramePointer" : "as the program says");
	int32_t rc = real(pvm, penv, &ours);
	free(opts);              /* the JVM keeps copies of what it keeps */
	return rc;
}

/* ---- thread names -------------------------------------------------------- */

COL_API int pthread_setname_np(pthread_t thread, const char *name)
{
	int rc = col_real_table()->pthread_setname_np(thread, name);

	/* Another thread's tid is not known here: its own names are. */
	if (rc == 0 && pthread_equal(thread, pthread_self()))
		col_thread_name(name, 0);
	return rc;
}
