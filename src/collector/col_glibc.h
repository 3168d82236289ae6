/* SPDX-License-Identifier: MIT
 *
 * col_glibc.h — glibc entry points that tally interposes but no header
 * declares (the fortified __*_chk forms and __open_2 exist only for
 * _FORTIFY_SOURCE builds; scanf is renamed __isoc99_*; _IO_getc/_IO_putc
 * are the old names; bsd_signal is gone from <signal.h>).  One place for
 * them: the table's type checks (col_real.c) and the I/O tracer's
 * interposers.  Includes <stdio.h>: not for sigsafe files.  Part of the
 * col_real layer (col_state.h).
 */
#ifndef TALLY_COL_GLIBC_H
#define TALLY_COL_GLIBC_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>

__sighandler_t bsd_signal(int sig, __sighandler_t h);

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dir, const char *path, int flags);
int __openat64_2(int dir, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
struct pollfd;
int __poll_chk(struct pollfd *v, unsigned long n, int timeout, size_t vlen);
int __ppoll_chk(struct pollfd *v, unsigned long n, const struct timespec *timeout, const sigset_t *mask,
		size_t vlen);
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
		       struct sockaddr *addr, socklen_t *addrlen);

int __printf_chk(int flag, const char *fmt, ...);
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);
int __vprintf_chk(int flag, const char *fmt, va_list ap);
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
int __dprintf_chk(int fd, int flag, const char *fmt, ...);
int __vdprintf_chk(int fd, int flag, const char *fmt, va_list ap);
size_t __fread_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *f);
size_t __fread_unlocked_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *f);
char *__fgets_chk(char *buf, size_t buflen, int n, FILE *f);
char *__fgets_unlocked_chk(char *buf, size_t buflen, int n, FILE *f);
ssize_t __getdelim(char **line, size_t *cap, int delim, FILE *f);
int _IO_getc(FILE *f);
int _IO_putc(int c, FILE *f);
int __isoc99_fscanf(FILE *f, const char *fmt, ...);
int __isoc99_scanf(const char *fmt, ...);
int __isoc99_vfscanf(FILE *f, const char *fmt, va_list ap);
int __isoc99_vscanf(const char *fmt, va_list ap);

#endif
