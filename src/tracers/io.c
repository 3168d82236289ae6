/* SPDX-License-Identifier: MIT
 *
 * io.c — libtally-io.so, the I/O tracer (`tally record -i`).
 *
 * Interposes the system-call wrappers that open, close, read, write, sync
 * and seek files, and the stdio calls that move data (stdio reaches the
 * kernel through libc-internal calls no interposer sees, so its calls are
 * traced at the stdio level: the bytes a program hands to or takes from a
 * FILE).  Each call becomes an IO record: the calling stack, the descriptor,
 * the bytes moved (or -errno) and the time spent; opening a file (and dup,
 * fopen) also records which name the descriptor now stands for, so reports
 * can show I/O by file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tracers/tracer.h"

static struct trace_switch on;

static void name_fd(int fd, const char *path, uint64_t since_ns);

static int tracing(void)
{
	static int named_std;

	if (trace_option(&on, "io") <= 0)
		return 0;
	if (!named_std) {
		/* Inherited descriptors: name what they stand for. */
		named_std = 1;
		for (int fd = 0; fd < 3; fd++)
			name_fd(fd, NULL, 0);
	}
	return 1;
}

static void note(struct trace_caller at, uint16_t op, int fd, int64_t bytes, uint64_t t0)
{
	struct exp_io r = { .time_ns = t0, .op = op, .fd = fd, .bytes = bytes,
			    .dur_ns = tally__now() - t0 };
	tally__trace_event(EXP_FILE_IO, EXP_REC_IO, &r, sizeof(r), at.ra, at.sp, at.fp);
}

/* Record that `fd` names `path` (made absolute if relative), or, with a NULL
 * path, whatever /proc says it names (dup, inherited descriptors), from
 * `since_ns` on (0: now; an open passes its start time, so that the open
 * itself is counted for the file). */
static void name_fd(int fd, const char *path, uint64_t since_ns)
{
	char buf[4096];
	union {
		struct exp_fd_name f;
		char bytes[sizeof(struct exp_fd_name) + 40];
	} r;

	if (fd < 0)
		return;
	if (!path) {
		char link[64];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, buf, sizeof(buf) - 1);
		if (n <= 0)
			return;
		buf[n] = 0;
	} else if (path[0] != '/' && getcwd(buf, sizeof(buf) - 1)) {
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof(buf) - n, "/%s", path);
	} else {
		snprintf(buf, sizeof(buf), "%s", path);
	}
	/* The record is small; a long name keeps its last 36 bytes. */
	size_t len = strlen(buf);
	const char *name = len > 36 ? buf + len - 36 : buf;
	memset(&r, 0, sizeof(r));
	r.f.fd = fd;
	r.f.time_ns = since_ns;
	strcpy(r.f.name, name);
	uint32_t rlen = (uint32_t)((sizeof(struct exp_fd_name) + strlen(name) + 1 + 7) & ~7u);
	tally__trace_event(EXP_FILE_IO, EXP_REC_FD_NAME, &r, rlen, 0, 0, 0);
}

static int64_t result(ssize_t rc)
{
	return rc < 0 ? -(int64_t)errno : (int64_t)rc;
}

/* ---- opening and closing ------------------------------------------------ */

static int opened(int fd, const char *path, uint64_t t0)
{
	int saved = errno;
	int64_t rc = fd < 0 ? -(int64_t)errno : 0;
	if (fd >= 0)
		name_fd(fd, path, t0);      /* the open belongs to the file */
	note(TRACE_CALLER(), EXP_IO_OPEN, fd, rc, t0);
	errno = saved;
	return fd;
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

TRACE_API int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	if (!tracing())
		return REAL(open)(path, flags, mode);
	uint64_t t0 = tally__now();
	return opened(REAL(open)(path, flags, mode), path, t0);
}

TRACE_API int open64(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	if (!tracing())
		return REAL(open64)(path, flags, mode);
	uint64_t t0 = tally__now();
	return opened(REAL(open64)(path, flags, mode), path, t0);
}

TRACE_API int openat(int dir, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	if (!tracing())
		return REAL(openat)(dir, path, flags, mode);
	uint64_t t0 = tally__now();
	int fd = REAL(openat)(dir, path, flags, mode);
	return opened(fd, dir == AT_FDCWD || path[0] == '/' ? path : NULL, t0);
}

TRACE_API int openat64(int dir, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	if (!tracing())
		return REAL(openat64)(dir, path, flags, mode);
	uint64_t t0 = tally__now();
	int fd = REAL(openat64)(dir, path, flags, mode);
	return opened(fd, dir == AT_FDCWD || path[0] == '/' ? path : NULL, t0);
}

TRACE_API int creat(const char *path, mode_t mode)
{
	if (!tracing())
		return REAL(creat)(path, mode);
	uint64_t t0 = tally__now();
	return opened(REAL(creat)(path, mode), path, t0);
}

TRACE_API int creat64(const char *path, mode_t mode)
{
	if (!tracing())
		return REAL(creat64)(path, mode);
	uint64_t t0 = tally__now();
	return opened(REAL(creat64)(path, mode), path, t0);
}

TRACE_API int close(int fd)
{
	if (!tracing())
		return REAL(close)(fd);
	uint64_t t0 = tally__now();
	int rc = REAL(close)(fd);
	int saved = errno;
	note(TRACE_CALLER(), EXP_IO_CLOSE, fd, result(rc), t0);
	errno = saved;
	return rc;
}

TRACE_API int dup(int fd)
{
	int rc = REAL(dup)(fd);
	if (rc >= 0 && tracing()) {
		int saved = errno;
		name_fd(rc, NULL, 0);
		errno = saved;
	}
	return rc;
}

TRACE_API int dup2(int fd, int to)
{
	int rc = REAL(dup2)(fd, to);
	if (rc >= 0 && tracing()) {
		int saved = errno;
		name_fd(rc, NULL, 0);
		errno = saved;
	}
	return rc;
}

/* ---- moving data -------------------------------------------------------- */

/* The body of every data call: time it and record what it moved. */
#define TRACED(op, fd, call)                                                 \
	do {                                                                 \
		if (!tracing())                                              \
			return call;                                         \
		uint64_t t0_ = tally__now();                                 \
		__typeof__(call) rc_ = call;                                 \
		int saved_ = errno;                                          \
		note(TRACE_CALLER(), op, fd, result((ssize_t)rc_), t0_);                     \
		errno = saved_;                                              \
		return rc_;                                                  \
	} while (0)

TRACE_API ssize_t read(int fd, void *buf, size_t n)
{
	TRACED(EXP_IO_READ, fd, REAL(read)(fd, buf, n));
}

TRACE_API ssize_t write(int fd, const void *buf, size_t n)
{
	TRACED(EXP_IO_WRITE, fd, REAL(write)(fd, buf, n));
}

TRACE_API ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	TRACED(EXP_IO_READ, fd, REAL(pread)(fd, buf, n, off));
}

TRACE_API ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	TRACED(EXP_IO_READ, fd, REAL(pread64)(fd, buf, n, off));
}

TRACE_API ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	TRACED(EXP_IO_WRITE, fd, REAL(pwrite)(fd, buf, n, off));
}

TRACE_API ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	TRACED(EXP_IO_WRITE, fd, REAL(pwrite64)(fd, buf, n, off));
}

TRACE_API ssize_t readv(int fd, const struct iovec *iov, int n)
{
	TRACED(EXP_IO_READ, fd, REAL(readv)(fd, iov, n));
}

TRACE_API ssize_t writev(int fd, const struct iovec *iov, int n)
{
	TRACED(EXP_IO_WRITE, fd, REAL(writev)(fd, iov, n));
}

TRACE_API int fsync(int fd)
{
	TRACED(EXP_IO_SYNC, fd, REAL(fsync)(fd));
}

TRACE_API int fdatasync(int fd)
{
	TRACED(EXP_IO_SYNC, fd, REAL(fdatasync)(fd));
}

/* lseek's result is an offset, not bytes moved: record 0 (or -errno). */
TRACE_API off_t lseek(int fd, off_t off, int whence)
{
	if (!tracing())
		return REAL(lseek)(fd, off, whence);
	uint64_t t0 = tally__now();
	off_t rc = REAL(lseek)(fd, off, whence);
	int saved = errno;
	note(TRACE_CALLER(), EXP_IO_SEEK, fd, rc < 0 ? -(int64_t)errno : 0, t0);
	errno = saved;
	return rc;
}

TRACE_API off_t lseek64(int fd, off_t off, int whence)
{
	return lseek(fd, off, whence);
}

/* ---- stdio -------------------------------------------------------------- */

static FILE *fopened(FILE *f, const char *path, uint64_t t0)
{
	int saved = errno;
	int fd = f ? fileno(f) : -1;
	int64_t rc = f ? 0 : -(int64_t)errno;
	if (f)
		name_fd(fd, path, t0);
	note(TRACE_CALLER(), EXP_IO_OPEN, fd, rc, t0);
	errno = saved;
	return f;
}

TRACE_API FILE *fopen(const char *path, const char *mode)
{
	if (!tracing())
		return REAL(fopen)(path, mode);
	uint64_t t0 = tally__now();
	return fopened(REAL(fopen)(path, mode), path, t0);
}

TRACE_API FILE *fopen64(const char *path, const char *mode)
{
	if (!tracing())
		return REAL(fopen64)(path, mode);
	uint64_t t0 = tally__now();
	return fopened(REAL(fopen64)(path, mode), path, t0);
}

TRACE_API FILE *fdopen(int fd, const char *mode)
{
	if (!tracing())
		return REAL(fdopen)(fd, mode);
	uint64_t t0 = tally__now();
	return fopened(REAL(fdopen)(fd, mode), NULL, t0);
}

TRACE_API int fclose(FILE *f)
{
	int fd = f ? fileno(f) : -1;
	TRACED(EXP_IO_CLOSE, fd, REAL(fclose)(f));
}

/* fread/fwrite count the bytes moved: items * size. */
TRACE_API size_t fread(void *buf, size_t size, size_t n, FILE *f)
{
	if (!tracing())
		return REAL(fread)(buf, size, n, f);
	uint64_t t0 = tally__now();
	size_t rc = REAL(fread)(buf, size, n, f);
	int saved = errno;
	note(TRACE_CALLER(), EXP_IO_READ, fileno(f), (int64_t)(rc * size), t0);
	errno = saved;
	return rc;
}

TRACE_API size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
	if (!tracing())
		return REAL(fwrite)(buf, size, n, f);
	uint64_t t0 = tally__now();
	size_t rc = REAL(fwrite)(buf, size, n, f);
	int saved = errno;
	note(TRACE_CALLER(), EXP_IO_WRITE, fileno(f), (int64_t)(rc * size), t0);
	errno = saved;
	return rc;
}

TRACE_API int fputs(const char *s, FILE *f)
{
	if (!tracing())
		return REAL(fputs)(s, f);
	uint64_t t0 = tally__now();
	int rc = REAL(fputs)(s, f);
	int saved = errno;
	note(TRACE_CALLER(), EXP_IO_WRITE, fileno(f), rc < 0 ? -(int64_t)errno : (int64_t)strlen(s), t0);
	errno = saved;
	return rc;
}

TRACE_API int puts(const char *s)
{
	if (!tracing())
		return REAL(puts)(s);
	uint64_t t0 = tally__now();
	int rc = REAL(puts)(s);
	int saved = errno;
	note(TRACE_CALLER(), EXP_IO_WRITE, fileno(stdout), rc < 0 ? -(int64_t)errno : (int64_t)strlen(s) + 1, t0);
	errno = saved;
	return rc;
}

TRACE_API char *fgets(char *s, int n, FILE *f)
{
	if (!tracing())
		return REAL(fgets)(s, n, f);
	uint64_t t0 = tally__now();
	char *rc = REAL(fgets)(s, n, f);
	int saved = errno;
	note(TRACE_CALLER(), EXP_IO_READ, fileno(f), rc ? (int64_t)strlen(rc) : 0, t0);
	errno = saved;
	return rc;
}

TRACE_API int vfprintf(FILE *f, const char *fmt, va_list ap)
{
	if (!tracing())
		return REAL(vfprintf)(f, fmt, ap);
	uint64_t t0 = tally__now();
	int rc = REAL(vfprintf)(f, fmt, ap);
	int saved = errno;
	note(TRACE_CALLER(), EXP_IO_WRITE, fileno(f), rc < 0 ? -(int64_t)errno : rc, t0);
	errno = saved;
	return rc;
}

TRACE_API int fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vfprintf(f, fmt, ap);
	va_end(ap);
	return rc;
}

TRACE_API int vprintf(const char *fmt, va_list ap)
{
	return vfprintf(stdout, fmt, ap);
}

TRACE_API int printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return rc;
}

TRACE_API int fflush(FILE *f)
{
	if (!tracing() || !f)
		return REAL(fflush)(f);
	int fd = fileno(f);
	TRACED(EXP_IO_SYNC, fd, REAL(fflush)(f));
}
