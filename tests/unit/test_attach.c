/* SPDX-License-Identifier: MIT
 *
 * test_attach.c — what `tally record -p` decides without a live process:
 * the ptrace permission verdict for every kernel.yama.ptrace_scope (this
 * machine may have no Yama, or one setting only), and reading /proc of this
 * very process (maps, status fields, threads, a symbol of its libc).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach/attach.h"
#include "testhelp.h"

static void permission_by_yama_scope(void)
{
	char buf[512];

	/* Same user, no Yama or scope 0: allowed, with or without the capability. */
	CHECK(attach_permission_why(-1, false, true, false, buf, sizeof(buf)) == NULL);
	CHECK(attach_permission_why(0, false, true, false, buf, sizeof(buf)) == NULL);
	/* Another user: only with CAP_SYS_PTRACE. */
	CHECK(attach_permission_why(0, false, false, false, buf, sizeof(buf)) != NULL);
	CHECK(strstr(buf, "another user"));
	CHECK(attach_permission_why(0, true, false, false, buf, sizeof(buf)) == NULL);
	/* Scope 1: descendants only, unless capable. */
	CHECK(attach_permission_why(1, false, true, false, buf, sizeof(buf)) != NULL);
	CHECK(strstr(buf, "ptrace_scope is 1") && strstr(buf, "sysctl kernel.yama.ptrace_scope=0"));
	CHECK(attach_permission_why(1, false, true, true, buf, sizeof(buf)) == NULL);
	CHECK(attach_permission_why(1, true, true, false, buf, sizeof(buf)) == NULL);
	/* Scope 2: the capability is required, even for one's own process. */
	CHECK(attach_permission_why(2, false, true, true, buf, sizeof(buf)) != NULL);
	CHECK(strstr(buf, "CAP_SYS_PTRACE"));
	CHECK(attach_permission_why(2, true, false, false, buf, sizeof(buf)) == NULL);
	/* Scope 3: nobody. */
	CHECK(attach_permission_why(3, true, true, true, buf, sizeof(buf)) != NULL);
	CHECK(strstr(buf, "until it reboots"));
	/* Every verdict is one line. */
	for (int y = -1; y <= 3; y++)
		for (int bits = 0; bits < 8; bits++)
			if (attach_permission_why(y, bits & 1, bits & 2, bits & 4, buf, sizeof(buf)))
				CHECK(!strchr(buf, '\n'));
}

static void *idle(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static void proc_of_this_process(void)
{
	struct attach_maps m;
	char v[64];
	pid_t tids[16];
	pthread_t th;

	CHECK(attach_maps_read(getpid(), &m) == 0);
	const struct attach_map *me = attach_maps_find(&m, (uint64_t)(uintptr_t)&proc_of_this_process);
	CHECK(me && me->perms[2] == 'x' && strstr(me->path, "test_attach"));
	CHECK(attach_status_field(getpid(), 0, "Tgid", v, sizeof(v)) == 0 && atoi(v) == getpid());
	CHECK(attach_status_field(getpid(), 0, "NoSuchField", v, sizeof(v)) != 0);
	pthread_create(&th, NULL, idle, NULL);
	usleep(10000);
	int n = attach_threads(getpid(), tids, 16);
	CHECK(n == 2 && tids[0] == getpid() && tids[1] != getpid());
	/* The address attach_symbol computes is the one the loader gave. */
	const struct attach_map *libc = NULL;
	for (size_t i = 0; i < m.n && !libc; i++)
		if (strstr(attach_map_base(&m.v[i]), "libc.so") && m.v[i].perms[2] == 'x')
			libc = &m.v[i];
	char why[256] = "";
	uint64_t a = libc ? attach_symbol(getpid(), &m, libc, "getpid", why, sizeof(why)) : 0;
	CHECK(a && a == (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "getpid"));
	CHECK(libc && attach_symbol(getpid(), &m, libc, "no_such_symbol_here", why, sizeof(why)) == 0 &&
	      strstr(why, "no symbol"));
	attach_maps_free(&m);
}

int main(void)
{
	RUN(permission_by_yama_scope);
	RUN(proc_of_this_process);
	TEST_EXIT();
}
