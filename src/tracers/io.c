/* SPDX-License-Identifier: MIT
 *
 * io.c — libtally-io.so, the I/O tracer (`tally record -i`): the calls on
 * descriptors.  Its stdio half is io_stdio.c; both record through
 * io_record.c (io.h).
 *
 * Interposed: the open family (with the _FORTIFY_SOURCE __open_2 forms),
 * the other calls that make descriptors (the mkstemp family, pipe, pipe2,
 * socket, socketpair, accept, accept4, memfd_create: each new descriptor an
 * open of what it names), close, close_range, closefrom, dup, dup2, dup3; read, write, pread, pwrite,
 * readv, writev, preadv, pwritev (and their 64 and v2 forms), the fortified
 * __read_chk family; eventfd_read and eventfd_write; send and recv on
 * sockets (msg and mmsg forms too);
 * sendfile, copy_file_range, splice, tee and vmsplice; fsync, fdatasync,
 * lseek.  A call that moves data from one descriptor to another (sendfile,
 * copy_file_range, splice, tee) is one call, recorded as a write of its
 * destination, with the read of its source beside it (same stack, no call
 * of its own): bytes by file show both.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "collector/col_glibc.h"
#include "tracers/io.h"

static int64_t result(ssize_t rc)
{
	return rc < 0 ? -(int64_t)errno : (int64_t)rc;
}

/* ---- opening and closing ------------------------------------------------ */

static int opened(struct trace_caller at, int fd, const char *path, uint64_t t0)
{
	int saved = errno;
	int64_t rc = fd < 0 ? -(int64_t)errno : 0;
	io_run_end();
	if (fd >= 0)
		io_name_fd(fd, path, t0);      /* the open belongs to the file */
	io_note(at, EXP_IO_OPEN, fd, rc, t0);
	errno = saved;
	return fd;
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

/* The name an openat-style call opened: the path when it is absolute or
 * relative to the current directory, else what /proc says. */
static const char *at_path(int dir, const char *path)
{
	return dir == AT_FDCWD || (path && path[0] == '/') ? path : NULL;
}

/* The body of an open: `name` is called with the arguments after `path`
 * (the name to record). */
#define OPEN_LIKE(name, path, ...)                                            \
	do {                                                                  \
		if (!io_tracing())                                            \
			return REAL(name)(__VA_ARGS__);                      \
		uint64_t t0_ = tally__now();                                  \
		return opened(TRACE_CALLER(), REAL(name)(__VA_ARGS__), path, t0_); \
	} while (0)

TRACE_API int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	OPEN_LIKE(open, path, path, flags, mode);
}

TRACE_API int open64(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	OPEN_LIKE(open64, path, path, flags, mode);
}

TRACE_API int __open_2(const char *path, int flags)
{
	OPEN_LIKE(__open_2, path, path, flags);
}

TRACE_API int __open64_2(const char *path, int flags)
{
	OPEN_LIKE(__open64_2, path, path, flags);
}

TRACE_API int creat(const char *path, mode_t mode)
{
	OPEN_LIKE(creat, path, path, mode);
}

TRACE_API int creat64(const char *path, mode_t mode)
{
	OPEN_LIKE(creat64, path, path, mode);
}

TRACE_API int openat(int dir, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	OPEN_LIKE(openat, at_path(dir, path), dir, path, flags, mode);
}

TRACE_API int openat64(int dir, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	OPEN_LIKE(openat64, at_path(dir, path), dir, path, flags, mode);
}

TRACE_API int __openat_2(int dir, const char *path, int flags)
{
	OPEN_LIKE(__openat_2, at_path(dir, path), dir, path, flags);
}

TRACE_API int __openat64_2(int dir, const char *path, int flags)
{
	OPEN_LIKE(__openat64_2, at_path(dir, path), dir, path, flags);
}

/* mkstemp and its kin: `tmpl` holds the file's name once the call returns. */

TRACE_API int mkstemp(char *tmpl)
{
	OPEN_LIKE(mkstemp, tmpl, tmpl);
}

TRACE_API int mkstemp64(char *tmpl)
{
	OPEN_LIKE(mkstemp64, tmpl, tmpl);
}

TRACE_API int mkostemp(char *tmpl, int flags)
{
	OPEN_LIKE(mkostemp, tmpl, tmpl, flags);
}

TRACE_API int mkostemp64(char *tmpl, int flags)
{
	OPEN_LIKE(mkostemp64, tmpl, tmpl, flags);
}

TRACE_API int mkstemps(char *tmpl, int suffixlen)
{
	OPEN_LIKE(mkstemps, tmpl, tmpl, suffixlen);
}

TRACE_API int mkstemps64(char *tmpl, int suffixlen)
{
	OPEN_LIKE(mkstemps64, tmpl, tmpl, suffixlen);
}

TRACE_API int mkostemps(char *tmpl, int suffixlen, int flags)
{
	OPEN_LIKE(mkostemps, tmpl, tmpl, suffixlen, flags);
}

TRACE_API int mkostemps64(char *tmpl, int suffixlen, int flags)
{
	OPEN_LIKE(mkostemps64, tmpl, tmpl, suffixlen, flags);
}

/* Calls that make a descriptor named by what /proc says it is. */
TRACE_API int socket(int domain, int type, int protocol)
{
	OPEN_LIKE(socket, NULL, domain, type, protocol);
}

TRACE_API int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	OPEN_LIKE(accept, NULL, fd, addr, len);
}

TRACE_API int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	OPEN_LIKE(accept4, NULL, fd, addr, len, flags);
}

TRACE_API int memfd_create(const char *name, unsigned flags)
{
	OPEN_LIKE(memfd_create, NULL, name, flags);
}

/* Calls that make two descriptors: an open of each. */
static int opened_pair(struct trace_caller at, int rc, const int fds[2], uint64_t t0)
{
	if (rc != 0) {
		opened(at, -1, NULL, t0);
	} else {
		opened(at, fds[0], NULL, t0);
		opened(at, fds[1], NULL, t0);
	}
	return rc;
}

TRACE_API int pipe(int fds[2])
{
	if (!io_tracing())
		return REAL(pipe)(fds);
	uint64_t t0 = tally__now();
	return opened_pair(TRACE_CALLER(), REAL(pipe)(fds), fds, t0);
}

TRACE_API int pipe2(int fds[2], int flags)
{
	if (!io_tracing())
		return REAL(pipe2)(fds, flags);
	uint64_t t0 = tally__now();
	return opened_pair(TRACE_CALLER(), REAL(pipe2)(fds, flags), fds, t0);
}

TRACE_API int socketpair(int domain, int type, int protocol, int fds[2])
{
	if (!io_tracing())
		return REAL(socketpair)(domain, type, protocol, fds);
	uint64_t t0 = tally__now();
	return opened_pair(TRACE_CALLER(), REAL(socketpair)(domain, type, protocol, fds), fds, t0);
}

/* A descriptor made by a call we do not trace (eventfd, glibc's own opens)
 * is named before it is closed: the close is its file's, not the name the
 * number had before. */
TRACE_API int close(int fd)
{
	if (!io_tracing())
		return REAL(close)(fd);
	uint64_t t0 = tally__now();
	io_name_unnamed(fd, t0);
	io_run_end();
	io_buffered_flush(fd);        /* while fd is still its file */
	int rc = REAL(close)(fd);
	int saved = errno;
	if (rc == 0)
		io_fd_closed(fd, fd);
	io_note(TRACE_CALLER(), EXP_IO_CLOSE, fd, result(rc), t0);
	errno = saved;
	return rc;
}

/* Closing many at once: no record, but the names are forgotten. */
TRACE_API int close_range(unsigned first, unsigned last, int flags)
{
	if (!(flags & CLOSE_RANGE_CLOEXEC))
		io_buffered_flush(-1);        /* the thread's sums, while named */
	int rc = REAL(close_range)(first, last, flags);
	if (rc == 0 && !(flags & CLOSE_RANGE_CLOEXEC) && first <= (unsigned)INT32_MAX)
		io_fd_closed((int)first, last > (unsigned)INT32_MAX ? INT32_MAX : (int)last);
	return rc;
}

TRACE_API void closefrom(int first)
{
	io_buffered_flush(-1);
	REAL(closefrom)(first);
	io_fd_closed(first < 0 ? 0 : first, INT32_MAX);
}

/* The new descriptor names what the old one did. */
static int duplicated(int rc)
{
	if (rc >= 0 && io_tracing()) {
		int saved = errno;
		io_name_fd(rc, NULL, 0);
		errno = saved;
	}
	return rc;
}

TRACE_API int dup(int fd)
{
	return duplicated(REAL(dup)(fd));
}

TRACE_API int dup2(int fd, int to)
{
	if (fd != to)
		io_buffered_flush(to);        /* to's sums, while to is their file */
	int rc = REAL(dup2)(fd, to);
	if (rc >= 0 && fd != to)
		io_fd_closed(to, to);         /* replaced: a stream on it sees its new kind */
	return duplicated(rc);
}

TRACE_API int dup3(int fd, int to, int flags)
{
	io_buffered_flush(to);
	int rc = REAL(dup3)(fd, to, flags);
	if (rc >= 0)
		io_fd_closed(to, to);
	return duplicated(rc);
}

/* ---- moving data -------------------------------------------------------- */

/* The body of every data call: time it and record what it moved. */
#define TRACED(op, fd, call) IO_FD_CALL(op, fd, call, result((ssize_t)rc_))

/* The same for a send to an address (an unconnected datagram socket's
 * channel is the port it sends to: io_flow_dest). */
#define TRACED_TO(fd, to, tolen, call)                                               \
	IO_TIMED_IF(1, call, if (rc_ >= 0) io_flow_dest(fd, to, tolen);              \
		    io_note(TRACE_CALLER(), EXP_IO_WRITE, fd, result((ssize_t)rc_), t0_))

TRACE_API ssize_t read(int fd, void *buf, size_t n)
{
	TRACED(EXP_IO_READ, fd, REAL(read)(fd, buf, n));
}

TRACE_API ssize_t write(int fd, const void *buf, size_t n)
{
	TRACED(EXP_IO_WRITE, fd, REAL(write)(fd, buf, n));
}

TRACE_API ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	TRACED(EXP_IO_READ, fd, REAL(__read_chk)(fd, buf, n, buflen));
}

TRACE_API ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	TRACED(EXP_IO_READ, fd, REAL(pread)(fd, buf, n, off));
}

TRACE_API ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	TRACED(EXP_IO_READ, fd, REAL(pread64)(fd, buf, n, off));
}

TRACE_API ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	TRACED(EXP_IO_READ, fd, REAL(__pread_chk)(fd, buf, n, off, buflen));
}

TRACE_API ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	TRACED(EXP_IO_READ, fd, REAL(__pread64_chk)(fd, buf, n, off, buflen));
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

TRACE_API ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
{
	TRACED(EXP_IO_READ, fd, REAL(preadv)(fd, iov, n, off));
}

TRACE_API ssize_t preadv64(int fd, const struct iovec *iov, int n, off_t off)
{
	TRACED(EXP_IO_READ, fd, REAL(preadv64)(fd, iov, n, off));
}

TRACE_API ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	TRACED(EXP_IO_WRITE, fd, REAL(pwritev)(fd, iov, n, off));
}

TRACE_API ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t off)
{
	TRACED(EXP_IO_WRITE, fd, REAL(pwritev64)(fd, iov, n, off));
}

TRACE_API ssize_t preadv2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
	TRACED(EXP_IO_READ, fd, REAL(preadv2)(fd, iov, n, off, flags));
}

TRACE_API ssize_t preadv64v2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
	TRACED(EXP_IO_READ, fd, REAL(preadv64v2)(fd, iov, n, off, flags));
}

TRACE_API ssize_t pwritev2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
	TRACED(EXP_IO_WRITE, fd, REAL(pwritev2)(fd, iov, n, off, flags));
}

TRACE_API ssize_t pwritev64v2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
	TRACED(EXP_IO_WRITE, fd, REAL(pwritev64v2)(fd, iov, n, off, flags));
}

/* eventfd_read and eventfd_write: glibc's reach read and write inside
 * libc, past the interposers above.  Bytes: the 8 of the counter. */
#define EVENTFD_TRACED(op, fd, call) \
	IO_FD_CALL(op, fd, call, rc_ == 0 ? (int64_t)sizeof(eventfd_t) : -(int64_t)saved_)

TRACE_API int eventfd_read(int fd, eventfd_t *value)
{
	EVENTFD_TRACED(EXP_IO_READ, fd, REAL(eventfd_read)(fd, value));
}

TRACE_API int eventfd_write(int fd, eventfd_t value)
{
	EVENTFD_TRACED(EXP_IO_WRITE, fd, REAL(eventfd_write)(fd, value));
}

/* ---- sockets ------------------------------------------------------------ */

TRACE_API ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	TRACED(EXP_IO_WRITE, fd, REAL(send)(fd, buf, n, flags));
}

TRACE_API ssize_t sendto(int fd, const void *buf, size_t n, int flags,
			 const struct sockaddr *to, socklen_t tolen)
{
	TRACED_TO(fd, to, tolen, REAL(sendto)(fd, buf, n, flags, to, tolen));
}

TRACE_API ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	TRACED_TO(fd, msg ? msg->msg_name : NULL, msg ? msg->msg_namelen : 0, REAL(sendmsg)(fd, msg, flags));
}

TRACE_API ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	TRACED(EXP_IO_READ, fd, REAL(recv)(fd, buf, n, flags));
}

TRACE_API ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
	TRACED(EXP_IO_READ, fd, REAL(__recv_chk)(fd, buf, n, buflen, flags));
}

TRACE_API ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from,
			   socklen_t *fromlen)
{
	TRACED(EXP_IO_READ, fd, REAL(recvfrom)(fd, buf, n, flags, from, fromlen));
}

TRACE_API ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
				 struct sockaddr *from, socklen_t *fromlen)
{
	TRACED(EXP_IO_READ, fd, REAL(__recvfrom_chk)(fd, buf, n, buflen, flags, from, fromlen));
}

TRACE_API ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	TRACED(EXP_IO_READ, fd, REAL(recvmsg)(fd, msg, flags));
}

/* sendmmsg/recvmmsg return messages: the bytes are the messages' lengths. */
static int64_t mmsg_bytes(int rc, const struct mmsghdr *v)
{
	int64_t sum = 0;

	if (rc < 0)
		return -(int64_t)errno;
	for (int i = 0; i < rc; i++)
		sum += v[i].msg_len;
	return sum;
}

TRACE_API int sendmmsg(int fd, struct mmsghdr *v, unsigned n, int flags)
{
	if (!io_tracing())
		return REAL(sendmmsg)(fd, v, n, flags);
	uint64_t t0 = tally__now();
	int rc = REAL(sendmmsg)(fd, v, n, flags);
	int saved = errno;
	if (rc > 0)
		io_flow_dest(fd, v[rc - 1].msg_hdr.msg_name, v[rc - 1].msg_hdr.msg_namelen);
	io_note(TRACE_CALLER(), EXP_IO_WRITE, fd, mmsg_bytes(rc, v), t0);
	errno = saved;
	return rc;
}

TRACE_API int recvmmsg(int fd, struct mmsghdr *v, unsigned n, int flags, struct timespec *tmo)
{
	if (!io_tracing())
		return REAL(recvmmsg)(fd, v, n, flags, tmo);
	uint64_t t0 = tally__now();
	int rc = REAL(recvmmsg)(fd, v, n, flags, tmo);
	int saved = errno;
	io_note(TRACE_CALLER(), EXP_IO_READ, fd, mmsg_bytes(rc, v), t0);
	errno = saved;
	return rc;
}

/* ---- transfers between descriptors -------------------------------------- */

/* One call moved `rc` bytes from `in` to `out`: a write of `out` (the call)
 * and a read of `in` riding on it. */
#define TRANSFER(in, out, call)                                                      \
	IO_TIMED_IF(1, call,                                                          \
		    uint32_t id_ = io_note(TRACE_CALLER(), EXP_IO_WRITE, out, result((ssize_t)rc_), t0_); \
		    if (rc_ > 0) io_note_same(id_, EXP_IO_READ, in, (int64_t)rc_, t0_))

TRACE_API ssize_t sendfile(int out, int in, off_t *off, size_t n)
{
	TRANSFER(in, out, REAL(sendfile)(out, in, off, n));
}

TRACE_API ssize_t sendfile64(int out, int in, off_t *off, size_t n)
{
	TRANSFER(in, out, REAL(sendfile64)(out, in, off, n));
}

TRACE_API ssize_t copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t n,
				  unsigned flags)
{
	TRANSFER(in, out, REAL(copy_file_range)(in, in_off, out, out_off, n, flags));
}

TRACE_API ssize_t splice(int in, off_t *in_off, int out, off_t *out_off, size_t n,
			 unsigned flags)
{
	TRANSFER(in, out, REAL(splice)(in, in_off, out, out_off, n, flags));
}

TRACE_API ssize_t tee(int in, int out, size_t n, unsigned flags)
{
	TRANSFER(in, out, REAL(tee)(in, out, n, flags));
}

TRACE_API ssize_t vmsplice(int fd, const struct iovec *iov, size_t n, unsigned flags)
{
	TRACED(EXP_IO_WRITE, fd, REAL(vmsplice)(fd, iov, n, flags));
}

/* ---- syncing and seeking ------------------------------------------------ */

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
	if (!io_tracing())
		return REAL(lseek)(fd, off, whence);
	uint64_t t0 = tally__now();
	off_t rc = REAL(lseek)(fd, off, whence);
	int saved = errno;
	io_note(TRACE_CALLER(), EXP_IO_SEEK, fd, rc < 0 ? -(int64_t)errno : 0, t0);
	errno = saved;
	return rc;
}

TRACE_API off_t lseek64(int fd, off_t off, int whence)
{
	return lseek(fd, off, whence);
}
