/* SPDX-License-Identifier: MIT
 *
 * test_procfile_read.c — a descendant's slot read from processes.dat
 * (format/exp_procfile.h), and a record file (exp_file_open), when the
 * read itself fails: the error returned and named is the kernel's, not
 * always EIO.  pread and mmap are replaced here (this program's
 * definitions come before libc's for the analyzer's objects linked in), so
 * that a read or mapping fails with an errno chosen by the case.  A failed
 * mmap's ENOMEM is the file's failure (-EIO, that file lost), never the
 * load-refusing -ENOMEM kept for tally's own allocations.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "format/exp_procfile.h"
#include "format/exp_read.h"
#include "testhelp.h"

static int pread_fails_with;          /* 0: the real read */

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	if (pread_fails_with) {
		errno = pread_fails_with;
		return -1;
	}
	return syscall(SYS_pread64, fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	return pread(fd, buf, n, off);
}

static int mmap_fails_with;           /* 0: the real mapping */

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (mmap_fails_with) {
		errno = mmap_fails_with;
		return MAP_FAILED;
	}
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

static void failed_slot_read_names_its_errno(void)
{
	char dir[] = "/tmp/tally-procread.XXXXXX", path[64];
	struct exp_procfile_joined j;
	struct exp_error err;

	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	snprintf(path, sizeof(path), "%s/processes.dat", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1);
	close(fd);
	static const int errnos[] = { EOVERFLOW, EACCES, EIO };
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
		struct exp_procfile_src src = { path, EXP_SLOT_BYTES, NULL };
		pread_fails_with = errnos[i];
		int rc = exp_procfile_join(&src, &j, &err);
		pread_fails_with = 0;
		CHECKF(rc == -errnos[i], "rc %d (%s), expected -%d (%s)", rc, strerror(-rc), errnos[i],
		       strerror(errnos[i]));
		CHECKF(strstr(err.msg, path) && strstr(err.msg, strerror(errnos[i])), "'%s'", err.msg);
		CHECK(j.data == NULL);
	}
	unlink(path);
	rmdir(dir);
}

static void failed_file_read_names_its_errno(void)
{
	char dir[] = "/tmp/tally-fileread.XXXXXX", path[64], head[EXP_HEADER_BYTES] = "x";
	struct exp_file f;
	struct exp_error err;

	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	snprintf(path, sizeof(path), "%s/samples.dat", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, head, sizeof(head)) == (ssize_t)sizeof(head));
	close(fd);
	static const int errnos[] = { EOVERFLOW, EACCES };
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
		pread_fails_with = errnos[i];
		int rc = exp_file_open(&f, path, 0, &err);
		pread_fails_with = 0;
		CHECKF(rc == -errnos[i], "rc %d (%s), expected -%d (%s)", rc, strerror(-rc), errnos[i],
		       strerror(errnos[i]));
		CHECKF(err.cause && !strcmp(err.cause, strerror(errnos[i])) && !strncmp(err.msg, path, strlen(path)),
		       "'%s'", err.msg);
	}
	unlink(path);
	rmdir(dir);
}

/* A file large enough to be mapped (over 256 KiB) whose mmap fails: ENOMEM
 * (ulimit -v, vm.max_map_count) costs that file, -EIO with the cause named,
 * and EACCES keeps its own errno.  Before: -ENOMEM, which refused the whole
 * experiment as out of memory. */
static void failed_file_mmap_costs_that_file(void)
{
	char dir[] = "/tmp/tally-filemap.XXXXXX", path[64];
	static char body[1u << 20];
	struct exp_file f;
	struct exp_error err;

	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	snprintf(path, sizeof(path), "%s/samples.dat", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, body, sizeof(body)) == (ssize_t)sizeof(body));
	close(fd);
	static const int errnos[] = { ENOMEM, EACCES }, want[] = { EIO, EACCES };
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
		char cause[128];
		mmap_fails_with = errnos[i];
		int rc = exp_file_open(&f, path, 0, &err);
		mmap_fails_with = 0;
		CHECKF(rc == -want[i], "mmap %s: rc %d (%s), expected -%d (%s)", strerror(errnos[i]), rc,
		       strerror(-rc), want[i], strerror(want[i]));
		snprintf(cause, sizeof(cause), "mmap: %s", strerror(errnos[i]));
		CHECKF(err.cause && !strcmp(err.cause, cause) && !strncmp(err.msg, path, strlen(path)), "'%s'",
		       err.msg);
	}
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	RUN(failed_slot_read_names_its_errno);
	RUN(failed_file_read_names_its_errno);
	RUN(failed_file_mmap_costs_that_file);
	TEST_EXIT();
}
