/* SPDX-License-Identifier: MIT
 *
 * col_real.h — the real functions behind tally's libraries: one table,
 * resolved once, used by the collector and the tracers (src/tracers/).
 *
 * Three parts:
 *   - sys: the system calls the collector and the record writer make for
 *     themselves (exp_write_sys.h; raw, so the I/O tracer never sees them);
 *   - the other calls of our own that can fail (the sampling clock's);
 *   - next: for every function tally interposes, the definition our
 *     interposer stands in front of: the first one after all of tally's
 *     libraries (libc's, or another preloaded library's).
 * The first two are set statically; `next` is resolved by the first call of
 * col_real_table() (any interposer, the constructor, or a tracer through
 * tally__real), before anything else.  A test replaces entries to make them
 * fail (tests/unit/test_col_faults.c): this table is that seam.
 *
 * Bottom layer of the collector (col_state.h lists the layers): it includes
 * and calls nothing of the collector.
 */
#ifndef TALLY_COL_REAL_H
#define TALLY_COL_REAL_H

#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <wordexp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/eventfd.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>

#include "format/exp_write_sys.h"

#define COL_API __attribute__((visibility("default")))

/* System call `nr` made here, as libc's syscall() makes it (-1 and errno on
 * failure): the record writer's raw call (exp_write_sys.h).  The collector's
 * own calls use col_syscall(NR, ARGS...), never syscall(): the collector
 * interposes that (col_interpose_exec.c: an exec may go through it), and its
 * own calls must not pass through the top layer. */
#define col_syscall(...) exp_syscall(__VA_ARGS__)

struct _IO_FILE;                   /* FILE, without <stdio.h> (sigsafe files include this) */
struct _G_fpos_t;                  /* fpos_t */
struct _G_fpos64_t;
struct perf_event_attr;
struct sockaddr;
struct msghdr;
struct mmsghdr;
struct pollfd;
struct epoll_event;

/* X(return type, name, (parameters)) for every function tally interposes. */
#define COL_REAL_COLLECTOR(X)                                                          \
	X(int, pthread_create, (pthread_t *, const pthread_attr_t *, void *(*)(void *), void *)) \
	X(int, clone, (int (*)(void *), void *, int, void *, ...))                     \
	X(int, sigaction, (int, const struct sigaction *, struct sigaction *))         \
	X(__sighandler_t, signal, (int, __sighandler_t))                               \
	X(__sighandler_t, bsd_signal, (int, __sighandler_t))                           \
	X(__sighandler_t, sysv_signal, (int, __sighandler_t))                          \
	X(void *, dlopen, (const char *, int))                                         \
	X(int, dlclose, (void *))                                                      \
	X(int, execve, (const char *, char *const[], char *const[]))                   \
	X(int, execvpe, (const char *, char *const[], char *const[]))                  \
	X(int, fexecve, (int, char *const[], char *const[]))                           \
	X(int, execveat, (int, const char *, char *const[], char *const[], int))       \
	X(int, sigprocmask, (int, const sigset_t *, sigset_t *))                       \
	X(int, pthread_sigmask, (int, const sigset_t *, sigset_t *))                   \
	X(int, sigsuspend, (const sigset_t *))                                         \
	X(int, sigwait, (const sigset_t *, int *))                                     \
	X(int, sigwaitinfo, (const sigset_t *, siginfo_t *))                           \
	X(int, sigtimedwait, (const sigset_t *, siginfo_t *, const struct timespec *)) \
	X(int, signalfd, (int, const sigset_t *, int))                                 \
	X(int, posix_spawnattr_setsigmask, (posix_spawnattr_t *, const sigset_t *)) \
	X(int, posix_spawn, (pid_t *, const char *, const posix_spawn_file_actions_t *, \
			     const posix_spawnattr_t *, char *const[], char *const[]))           \
	X(int, posix_spawnp, (pid_t *, const char *, const posix_spawn_file_actions_t *, \
			      const posix_spawnattr_t *, char *const[], char *const[]))          \
	X(int, wordexp, (const char *, wordexp_t *, int))                              \
	X(int, pthread_setname_np, (pthread_t, const char *))                         \
	X(long, ptrace, (enum __ptrace_request, ...))                                  \
	X(int, raise, (int))                                                           \
	X(int, kill, (pid_t, int))

#define COL_REAL_HEAP(X)                                                               \
	X(void *, malloc, (size_t))                                                    \
	X(void *, calloc, (size_t, size_t))                                            \
	X(void *, realloc, (void *, size_t))                                           \
	X(void, free, (void *))                                                        \
	X(void *, memalign, (size_t, size_t))                                          \
	X(int, posix_memalign, (void **, size_t, size_t))                              \
	X(void *, aligned_alloc, (size_t, size_t))                                     \
	X(void *, valloc, (size_t))                                                    \
	X(void *, pvalloc, (size_t))

#define COL_REAL_SYNC(X)                                                               \
	X(long, syscall, (long, ...))                                                  \
	X(int, system, (const char *))                  /* after the sync tracer's */  \
	X(int, pthread_mutex_lock, (pthread_mutex_t *))                                \
	X(int, pthread_mutex_trylock, (pthread_mutex_t *))                             \
	X(int, pthread_mutex_timedlock, (pthread_mutex_t *, const struct timespec *))  \
	X(int, pthread_mutex_unlock, (pthread_mutex_t *))                              \
	X(int, pthread_rwlock_rdlock, (pthread_rwlock_t *))                            \
	X(int, pthread_rwlock_tryrdlock, (pthread_rwlock_t *))                         \
	X(int, pthread_rwlock_timedrdlock, (pthread_rwlock_t *, const struct timespec *)) \
	X(int, pthread_rwlock_wrlock, (pthread_rwlock_t *))                            \
	X(int, pthread_rwlock_trywrlock, (pthread_rwlock_t *))                         \
	X(int, pthread_rwlock_timedwrlock, (pthread_rwlock_t *, const struct timespec *)) \
	X(int, pthread_rwlock_unlock, (pthread_rwlock_t *))                            \
	X(int, pthread_cond_wait, (pthread_cond_t *, pthread_mutex_t *))               \
	X(int, pthread_cond_timedwait, (pthread_cond_t *, pthread_mutex_t *, const struct timespec *)) \
	X(int, pthread_cond_clockwait, (pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *)) \
	X(int, pthread_cond_signal, (pthread_cond_t *))                                \
	X(int, pthread_cond_broadcast, (pthread_cond_t *))                             \
	X(int, sem_post, (sem_t *))                                                    \
	X(int, cnd_signal, (cnd_t *))                                                  \
	X(int, cnd_broadcast, (cnd_t *))                                               \
	X(int, pthread_barrier_init, (pthread_barrier_t *, const pthread_barrierattr_t *, unsigned)) \
	X(int, pthread_barrier_wait, (pthread_barrier_t *))                            \
	X(int, pthread_join, (pthread_t, void **))                                     \
	X(int, pthread_timedjoin_np, (pthread_t, void **, const struct timespec *))    \
	X(int, pthread_clockjoin_np, (pthread_t, void **, clockid_t, const struct timespec *)) \
	X(int, sem_wait, (sem_t *))                                                    \
	X(int, sem_trywait, (sem_t *))                                                 \
	X(int, sem_timedwait, (sem_t *, const struct timespec *))                      \
	X(int, sem_clockwait, (sem_t *, clockid_t, const struct timespec *))             \
	X(int, mtx_lock, (mtx_t *))                                                    \
	X(int, mtx_trylock, (mtx_t *))                                                 \
	X(int, mtx_timedlock, (mtx_t *__restrict, const struct timespec *__restrict))  \
	X(int, cnd_wait, (cnd_t *, mtx_t *))                                           \
	X(int, cnd_timedwait, (cnd_t *__restrict, mtx_t *__restrict, const struct timespec *__restrict)) \
	X(int, thrd_join, (thrd_t, int *))                                             \
	X(pid_t, wait, (int *))                                                        \
	X(pid_t, waitpid, (pid_t, int *, int))                                         \
	X(pid_t, wait3, (int *, int, struct rusage *))                                 \
	X(pid_t, wait4, (pid_t, int *, int, struct rusage *))                          \
	X(int, waitid, (idtype_t, id_t, siginfo_t *, int))

#define COL_REAL_IO(X) COL_REAL_IO_FD(X) COL_REAL_IO_STDIO(X)

/* The I/O tracer's calls on descriptors (src/tracers/io.c). */
#define COL_REAL_IO_FD(X)                                                              \
	X(int, open, (const char *, int, ...))                                         \
	X(int, open64, (const char *, int, ...))                                       \
	X(int, __open_2, (const char *, int))                                          \
	X(int, __open64_2, (const char *, int))                                        \
	X(int, openat, (int, const char *, int, ...))                                  \
	X(int, openat64, (int, const char *, int, ...))                                \
	X(int, __openat_2, (int, const char *, int))                                   \
	X(int, __openat64_2, (int, const char *, int))                                 \
	X(int, creat, (const char *, mode_t))                                          \
	X(int, creat64, (const char *, mode_t))                                        \
	X(int, mkstemp, (char *))                                                      \
	X(int, mkstemp64, (char *))                                                    \
	X(int, mkostemp, (char *, int))                                                \
	X(int, mkostemp64, (char *, int))                                              \
	X(int, mkstemps, (char *, int))                                                \
	X(int, mkstemps64, (char *, int))                                              \
	X(int, mkostemps, (char *, int, int))                                          \
	X(int, mkostemps64, (char *, int, int))                                        \
	X(int, socket, (int, int, int))                                                \
	X(int, socketpair, (int, int, int, int *))                                     \
	X(int, accept, (int, struct sockaddr *, __socklen_t *))                        \
	X(int, accept4, (int, struct sockaddr *, __socklen_t *, int))                  \
	X(int, memfd_create, (const char *, unsigned int))                             \
	X(int, pipe, (int *))                                                          \
	X(int, pipe2, (int *, int))                                                    \
	X(int, close, (int))                                                           \
	X(int, close_range, (unsigned int, unsigned int, int))                         \
	X(void, closefrom, (int))                                                      \
	X(int, dup, (int))                                                             \
	X(int, dup2, (int, int))                                                       \
	X(int, dup3, (int, int, int))                                                  \
	X(ssize_t, read, (int, void *, size_t))                                        \
	X(int, eventfd_read, (int, eventfd_t *))                                       \
	X(int, eventfd_write, (int, eventfd_t))                                        \
	X(ssize_t, write, (int, const void *, size_t))                                 \
	X(ssize_t, __read_chk, (int, void *, size_t, size_t))                          \
	X(ssize_t, pread, (int, void *, size_t, off_t))                                \
	X(ssize_t, pread64, (int, void *, size_t, off_t))                              \
	X(ssize_t, __pread_chk, (int, void *, size_t, off_t, size_t))                  \
	X(ssize_t, __pread64_chk, (int, void *, size_t, off_t, size_t))                \
	X(ssize_t, pwrite, (int, const void *, size_t, off_t))                         \
	X(ssize_t, pwrite64, (int, const void *, size_t, off_t))                       \
	X(ssize_t, readv, (int, const struct iovec *, int))                            \
	X(ssize_t, writev, (int, const struct iovec *, int))                           \
	X(ssize_t, preadv, (int, const struct iovec *, int, off_t))                    \
	X(ssize_t, preadv64, (int, const struct iovec *, int, off_t))                  \
	X(ssize_t, pwritev, (int, const struct iovec *, int, off_t))                   \
	X(ssize_t, pwritev64, (int, const struct iovec *, int, off_t))                 \
	X(ssize_t, preadv2, (int, const struct iovec *, int, off_t, int))              \
	X(ssize_t, preadv64v2, (int, const struct iovec *, int, off_t, int))           \
	X(ssize_t, pwritev2, (int, const struct iovec *, int, off_t, int))             \
	X(ssize_t, pwritev64v2, (int, const struct iovec *, int, off_t, int))          \
	X(ssize_t, send, (int, const void *, size_t, int))                             \
	X(ssize_t, sendto, (int, const void *, size_t, int, const struct sockaddr *, __socklen_t)) \
	X(ssize_t, sendmsg, (int, const struct msghdr *, int))                         \
	X(int, sendmmsg, (int, struct mmsghdr *, unsigned int, int))                   \
	X(ssize_t, recv, (int, void *, size_t, int))                                   \
	X(ssize_t, __recv_chk, (int, void *, size_t, size_t, int))                     \
	X(ssize_t, recvfrom, (int, void *, size_t, int, struct sockaddr *, __socklen_t *)) \
	X(ssize_t, __recvfrom_chk, (int, void *, size_t, size_t, int, struct sockaddr *, __socklen_t *)) \
	X(ssize_t, recvmsg, (int, struct msghdr *, int))                               \
	X(int, recvmmsg, (int, struct mmsghdr *, unsigned int, int, struct timespec *)) \
	X(ssize_t, sendfile, (int, int, off_t *, size_t))                              \
	X(ssize_t, sendfile64, (int, int, off_t *, size_t))                            \
	X(ssize_t, copy_file_range, (int, off_t *, int, off_t *, size_t, unsigned int)) \
	X(ssize_t, splice, (int, off_t *, int, off_t *, size_t, unsigned int))         \
	X(ssize_t, tee, (int, int, size_t, unsigned int))                              \
	X(ssize_t, vmsplice, (int, const struct iovec *, size_t, unsigned int))        \
	X(int, poll, (struct pollfd *, unsigned long, int))                            \
	X(int, __poll_chk, (struct pollfd *, unsigned long, int, size_t))              \
	X(int, ppoll, (struct pollfd *, unsigned long, const struct timespec *, const sigset_t *)) \
	X(int, __ppoll_chk, (struct pollfd *, unsigned long, const struct timespec *, const sigset_t *, size_t)) \
	X(int, select, (int, fd_set *, fd_set *, fd_set *, struct timeval *))          \
	X(int, pselect, (int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *)) \
	X(int, epoll_create, (int))                                                    \
	X(int, epoll_create1, (int))                                                   \
	X(int, epoll_ctl, (int, int, int, struct epoll_event *))                       \
	X(int, epoll_wait, (int, struct epoll_event *, int, int))                      \
	X(int, epoll_pwait, (int, struct epoll_event *, int, int, const sigset_t *))   \
	X(int, epoll_pwait2, (int, struct epoll_event *, int, const struct timespec *, const sigset_t *)) \
	X(int, fsync, (int))                                                           \
	X(int, fdatasync, (int))                                                       \
	X(off_t, lseek, (int, off_t, int))

/* ... and on streams (src/tracers/io_stdio.c). */
#define COL_REAL_IO_STDIO(X)                                                           \
	X(struct _IO_FILE *, fopen, (const char *, const char *))                                \
	X(struct _IO_FILE *, fopen64, (const char *, const char *))                              \
	X(struct _IO_FILE *, fdopen, (int, const char *))                                        \
	X(struct _IO_FILE *, freopen, (const char *, const char *, struct _IO_FILE *))                     \
	X(struct _IO_FILE *, tmpfile, (void))                                                    \
	X(struct _IO_FILE *, tmpfile64, (void))                                                  \
	X(struct _IO_FILE *, popen, (const char *, const char *))                                \
	X(int, fclose, (struct _IO_FILE *))                                                      \
	X(int, pclose, (struct _IO_FILE *))                                                      \
	X(int, fcloseall, (void))                                                      \
	X(int, fflush, (struct _IO_FILE *))                                                      \
	X(int, fflush_unlocked, (struct _IO_FILE *))                                             \
	X(int, fseek, (struct _IO_FILE *, long, int))                                            \
	X(int, fseeko, (struct _IO_FILE *, off_t, int))                                          \
	X(int, fseeko64, (struct _IO_FILE *, off_t, int))                                        \
	X(int, fsetpos, (struct _IO_FILE *, const struct _G_fpos_t *))                           \
	X(int, fsetpos64, (struct _IO_FILE *, const struct _G_fpos64_t *))                       \
	X(void, rewind, (struct _IO_FILE *))                                                     \
	X(size_t, fread, (void *, size_t, size_t, struct _IO_FILE *))                            \
	X(size_t, fread_unlocked, (void *, size_t, size_t, struct _IO_FILE *))                   \
	X(size_t, __fread_chk, (void *, size_t, size_t, size_t, struct _IO_FILE *))              \
	X(size_t, __fread_unlocked_chk, (void *, size_t, size_t, size_t, struct _IO_FILE *))     \
	X(size_t, fwrite, (const void *, size_t, size_t, struct _IO_FILE *))                     \
	X(size_t, fwrite_unlocked, (const void *, size_t, size_t, struct _IO_FILE *))            \
	X(int, fputs, (const char *, struct _IO_FILE *))                                         \
	X(int, fputs_unlocked, (const char *, struct _IO_FILE *))                                \
	X(int, puts, (const char *))                                                   \
	X(char *, fgets, (char *, int, struct _IO_FILE *))                                       \
	X(char *, fgets_unlocked, (char *, int, struct _IO_FILE *))                              \
	X(char *, __fgets_chk, (char *, size_t, int, struct _IO_FILE *))                         \
	X(char *, __fgets_unlocked_chk, (char *, size_t, int, struct _IO_FILE *))                \
	X(ssize_t, getline, (char **, size_t *, struct _IO_FILE *))                              \
	X(ssize_t, getdelim, (char **, size_t *, int, struct _IO_FILE *))                        \
	X(ssize_t, __getdelim, (char **, size_t *, int, struct _IO_FILE *))                      \
	X(int, vfprintf, (struct _IO_FILE *, const char *, va_list))                             \
	X(int, __vfprintf_chk, (struct _IO_FILE *, int, const char *, va_list))                  \
	X(int, vdprintf, (int, const char *, va_list))                                 \
	X(int, __vdprintf_chk, (int, int, const char *, va_list))                      \
	X(int, vfscanf, (struct _IO_FILE *, const char *, va_list))                              \
	X(int, __isoc99_vfscanf, (struct _IO_FILE *, const char *, va_list))                     \
	X(int, fgetc, (struct _IO_FILE *))                                                       \
	X(int, getc, (struct _IO_FILE *))                                                        \
	X(int, _IO_getc, (struct _IO_FILE *))                                                    \
	X(int, fgetc_unlocked, (struct _IO_FILE *))                                              \
	X(int, getc_unlocked, (struct _IO_FILE *))                                               \
	X(int, getchar, (void))                                                        \
	X(int, getchar_unlocked, (void))                                               \
	X(int, __uflow, (struct _IO_FILE *))                                                     \
	X(int, fputc, (int, struct _IO_FILE *))                                                  \
	X(int, putc, (int, struct _IO_FILE *))                                                   \
	X(int, _IO_putc, (int, struct _IO_FILE *))                                               \
	X(int, fputc_unlocked, (int, struct _IO_FILE *))                                         \
	X(int, putc_unlocked, (int, struct _IO_FILE *))                                          \
	X(int, putchar, (int))                                                         \
	X(int, putchar_unlocked, (int))                                                \
	X(int, __overflow, (struct _IO_FILE *, int))

#define COL_REAL_NEXT(X) COL_REAL_COLLECTOR(X) COL_REAL_HEAP(X) COL_REAL_SYNC(X) COL_REAL_IO(X)

/* What the collector interposes to keep its descriptors (col_interpose_fd.c),
 * or a fork child's files before a spawn (popen, system:
 * col_interpose_spawn.c), and a tracer interposes too (the I/O tracer
 * popen, the sync tracer system): the collector calls the next definition
 * after its own, the tracer's when it is loaded, so that both see the call. */
#define COL_REAL_CHAIN(X)                                                              \
	X(int, close, (int))                                                           \
	X(int, close_range, (unsigned int, unsigned int, int))                         \
	X(void, closefrom, (int))                                                      \
	X(int, dup, (int))                                                             \
	X(int, dup2, (int, int))                                                       \
	X(int, dup3, (int, int, int))                                                  \
	X(int, fcntl, (int, int, ...))                                                 \
	X(int, fcntl64, (int, int, ...))                                               \
	X(void *, mmap, (void *, size_t, int, int, int, off_t))                        \
	X(int, munmap, (void *, size_t))                                               \
	X(struct _IO_FILE *, popen, (const char *, const char *))                     \
	X(int, system, (const char *))

struct col_real {
	/* The system calls of our own I/O and of the record writer. */
	struct exp_sys sys;
	/* The sampling clock's calls. */
	int (*perf_event_open)(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			       unsigned long flags);
	int (*ioctl)(int fd, unsigned long request, ...);
	int (*fcntl)(int fd, int cmd, ...);
	int (*timer_create)(clockid_t clock, struct sigevent *sev, timer_t *timer);
	int (*timer_settime)(timer_t timer, int flags, const struct itimerspec *its,
			     struct itimerspec *old);
	/* Directories of descendants' sub-experiments. */
	int (*mkdir)(const char *path, mode_t mode);
	/* Next definitions of what we interpose; NULL where there is none. */
#define COL_REAL_FIELD(type, name, params) type(*name) params;
	COL_REAL_NEXT(COL_REAL_FIELD)
	struct {
		COL_REAL_CHAIN(COL_REAL_FIELD)
	} chain;
#undef COL_REAL_FIELD
};

/* The table.  Its `next` part is valid once col_real_table() returned it. */
extern struct col_real col_real;

/* A call through the table below the top layer: COL_REAL(fcntl)(fd, ...) is
 * the real fcntl, never the interposer of that name (the tracers write
 * REAL(name), tracer.h).  Spelled so, a call of `fcntl(` in the code is a
 * call of the interposer and nothing else: a reader's grep, the call graph
 * and tests/e2e/test_layers.sh (collector_calls_no_interposer_below_top)
 * see the collector's files call downwards only. */
#define COL_REAL(name) (col_real.name)

/* The table, resolving it on first use (and pointing exp_sys at col_real.sys).
 * NULL only for calls made by the resolution itself (dlsym, dlopen allocate:
 * the heap tracer serves those from its arena).  Normal context only (the
 * first call); thread-safe: concurrent first calls each resolve, to the same
 * values, and never wait for one another. */
const struct col_real *col_real_table(void);

/* Why the collector's perf_event_open fails with EPERM without being made
 * (the calling thread is under a seccomp filter, which may kill its caller,
 * and `tally record` did not probe the call safe under the same filters:
 * col_real.c), or NULL.  Sigsafe. */
const char *col_real_perf_forbidden(void);

/* May a clone(CLONE_VM | CLONE_VFORK) of the collector's (col_fds_aside)
 * be the caller's death under a seccomp filter (as for perf_event_open
 * above)?  Sigsafe. */
bool col_real_clone_forbidden(void);

/* May get_robust_list/set_robust_list (a raw thread's key, col_rawthread.c)
 * be the caller's death, as for perf_event_open above?  Sigsafe; costs
 * what col_real_proc_status does (getpid, prctl): asked once per raw
 * thread, at its set-up. */
bool col_real_robust_forbidden(void);

/* Has the program added a seccomp filter through an interposed call since
 * start, or is one under way (col_real_seccomp_call)?  A call allowed by
 * the gates above before may kill now.  Two loads: for a decision taken
 * at a set-up and trusted after, at every signal.  Sigsafe. */
bool col_real_filter_added_since(void);

/* What `tally record` probed (exp_launch_options' seccomp_filters and
 * seccomp_safe): the filter count the program started under (-1: none
 * probed) and the EXP_SECCOMP_* calls that lived under it.  At start. */
void col_real_seccomp_probed(int filters, unsigned safe);

/* The program is about to make system call `nr` with first argument `a0`
 * (its prctl or syscall(), interposed): one that adds a seccomp filter (or
 * strict mode) makes the count probed untrusted while it is under way,
 * and for good (in this process and its fork children) once it succeeded:
 * col_real_perf_forbidden says so.  True for such a call, whose result
 * `rc` is then told to col_real_seccomp_done.  Any thread. */
bool col_real_seccomp_call(long nr, long a0);
void col_real_seccomp_done(long rc);

/* This process's /proc/self/status fields TracerPid (0: not traced) and
 * Seccomp (2: under a filter), -1 each when unknown: read once per process,
 * at the first call (a read costs about 20 us here); Seccomp asked again of
 * the kernel (prctl PR_GET_SECCOMP, one cheap call) at each later call until
 * it is 2, as a program may install a filter at any time.  Normal context
 * (and the signal handler: raw system calls). */
void col_real_proc_status(int *tracer_pid, int *seccomp);

/* The TracerPid in the status file open at `fd` (a thread's
 * /proc/thread-self/status: a tracer attaches to a thread, not a process),
 * read afresh from its start (0: not traced, -1: unknown).  The caller
 * opens it (above the program's numbers) and closes it.  Sigsafe: raw
 * system calls. */
int col_real_tracer_in(int fd);

/* libc's dlsym (the collector interposes dlsym: col_dlsym.S), or NULL.
 * Called from the collector, its RTLD_NEXT means after the collector. */
void *(*col_real_dlsym(void))(void *, const char *);

/* For the tracers: the same, exported from libtally-collector.so. */
const struct col_real *tally__real(void);

#endif
