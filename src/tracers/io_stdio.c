/* SPDX-License-Identifier: MIT
 *
 * io_stdio.c — libtally-io.so's stdio half: every stdio entry point that
 * moves bytes, opens, closes, flushes or seeks a stream.
 *
 * stdio reaches the kernel through libc-internal calls that no interposer
 * sees, so streams are traced at the stdio level: the bytes a program hands
 * to a FILE or takes from it.  Interposed: fread, fwrite, fgets, fputs, puts,
 * getline, getdelim, the printf and scanf families, their _unlocked forms and
 * the _FORTIFY_SOURCE __*_chk forms; the one-character calls fgetc, getc,
 * getchar, fputc, putc, putchar (and _unlocked, _IO_getc, _IO_putc); fopen,
 * fdopen, freopen, tmpfile, popen, fclose, pclose, fcloseall, fflush, fseek,
 * fseeko, rewind, fsetpos.  Memory streams (fmemopen, open_memstream: no
 * descriptor) are not I/O and are not traced; nor is wide-character stdio.
 *
 * Inline getc_unlocked and putc_unlocked (glibc's headers expand them, and
 * small constant fread/fwrite, into buffer pointer moves when optimizing)
 * call nothing until the buffer is empty or full: then __uflow or
 * __overflow, which are interposed too.  The bytes they moved in between are
 * found from the stream's own pointers: each traced call notes where the
 * read and write pointers stood when it returned (a small table by FILE); at
 * the next traced call on the stream, the pointers' advance since then is
 * what inline code moved.  Those bytes are recorded with that call's stack
 * (and, left in a buffer at exit, with the exit's).  scanf's bytes come from
 * the stream position (ftello) when it has one; on a pipe they are a lower
 * bound: what it took from the buffer, not what refills brought in between.
 *
 * One-character calls are gathered into runs (io.h).  Called from any
 * thread; the table's entries are claimed with compare-and-swap, and a
 * stream used by two threads at once (allowed with the locking calls) may
 * see its inline bytes misattributed between them, never invented.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "collector/col_glibc.h"
#include "tracers/io.h"

/* glibc's headers define these as macros when optimizing. */
#undef fread_unlocked
#undef fwrite_unlocked
#undef getc_unlocked
#undef putc_unlocked
#undef fgetc_unlocked
#undef fputc_unlocked
#undef getchar_unlocked
#undef putchar_unlocked
#undef getc
#undef putc

/* ---- where inline code left each stream's pointers ---------------------- */

#define SHADOWS 4096                 /* streams tracked at once (a power of two) */
#define PROBES 64

struct shadow {
	_Atomic(FILE *) f;               /* NULL: never used; TOMB: free again */
	char *r, *w;                     /* read / write pointer after our last call */
	int kind;                        /* its descriptor: SUMMED, EVENTS, 0 not yet known */
	uint32_t kind_at;                /* io_fd_changes() when kind was taken */
};
enum { SUMMED = 1, EVENTS };
#define TOMB ((FILE *)1)
static struct shadow shadows[SHADOWS];

static size_t slot_of(const FILE *f)
{
	return (size_t)(((uintptr_t)f >> 4) * 0x9e3779b97f4a7c15ull >> 52) & (SHADOWS - 1);
}

/* f's entry, made if `make`; NULL if there is none (or no room). */
static struct shadow *shadow_of(FILE *f, bool make)
{
	size_t at = slot_of(f);
	struct shadow *free_slot = NULL;

	for (int i = 0; i < PROBES; i++) {
		struct shadow *s = &shadows[(at + (size_t)i) & (SHADOWS - 1)];
		FILE *k = atomic_load_explicit(&s->f, memory_order_acquire);
		if (k == f)
			return s;
		if (k == TOMB && !free_slot)
			free_slot = s;
		if (!k) {
			if (!free_slot)
				free_slot = s;
			break;
		}
	}
	if (!make || !free_slot)
		return NULL;
	FILE *old = atomic_load(&free_slot->f);
	if ((old == NULL || old == TOMB) && atomic_compare_exchange_strong(&free_slot->f, &old, f)) {
		free_slot->r = free_slot->w = NULL;
		free_slot->kind = 0;
		return free_slot;
	}
	return NULL;
}

static void shadow_forget(FILE *f)
{
	struct shadow *s = shadow_of(f, false);

	if (s)
		atomic_store_explicit(&s->f, TOMB, memory_order_release);
}

/* Bytes between `mark` and `ptr` in a buffer starting at `base`: all since
 * `base` when the mark is not in it (first use, or the buffer was
 * replaced). */
static uint64_t advance(const char *mark, const char *base, const char *ptr)
{
	if (!ptr || !base || ptr < base)
		return 0;
	return mark && mark >= base && mark <= ptr ? (uint64_t)(ptr - mark) : (uint64_t)(ptr - base);
}

struct inline_bytes {
	uint64_t r, w;
};

/* What inline getc/putc moved on `f` (its entry s, or NULL) since our last
 * call on it. */
static struct inline_bytes inline_since_at(FILE *f, const struct shadow *s)
{
	struct inline_bytes b = {
		advance(s ? s->r : NULL, f->_IO_read_base, f->_IO_read_ptr),
		advance(s ? s->w : NULL, f->_IO_write_base, f->_IO_write_ptr),
	};
	/* A stream reading has no write area, and the other way round. */
	if (f->_IO_write_ptr == f->_IO_write_base)
		b.w = 0;
	return b;
}

static struct inline_bytes inline_since(FILE *f)
{
	return inline_since_at(f, shadow_of(f, false));
}

/* Note where f's pointers stand now (after a call of ours) in its entry s. */
static void mark_at(FILE *f, struct shadow *s)
{
	if (s && atomic_load_explicit(&s->f, memory_order_relaxed) == f) {
		s->r = f->_IO_read_ptr;
		s->w = f->_IO_write_ptr;
	}
}

static void mark(FILE *f)
{
	mark_at(f, shadow_of(f, true));
}

/* ---- calls that stay in the buffer -------------------------------------- */

/* Where f's buffer stood before a call. */
struct buf_at {
	const char *rbase, *rptr, *rend, *wbase, *wptr;
};

static struct buf_at buf_now(const FILE *f)
{
	return (struct buf_at){ f->_IO_read_base, f->_IO_read_ptr, f->_IO_read_end, f->_IO_write_base,
				f->_IO_write_ptr };
}

#define IO_UNBUFFERED 0x2                /* libio's _IO_UNBUFFERED, in _flags */

/* Did a call that moved `bytes` on side `op` of f only put them into its
 * buffer or take them from it (buffer at `a` before the call)?  A flush
 * (full buffer, a line-buffered newline) moves the write pointer back to
 * the buffer's start, a refill changes the read area, a large transfer
 * bypasses the buffer: then the pointer did not advance by `bytes`.  A
 * read that moved nothing (the end of the file) asked the kernel. */
static bool stayed(const FILE *f, const struct buf_at *a, uint16_t op, int64_t bytes)
{
	if (bytes < 0 || (f->_flags & IO_UNBUFFERED))
		return false;
	if (op == EXP_IO_WRITE)
		return a->wbase && f->_IO_write_base == a->wbase && f->_IO_write_ptr == a->wptr + bytes;
	return op == EXP_IO_READ && bytes > 0 && a->rbase && f->_IO_read_base == a->rbase &&
	       f->_IO_read_end == a->rend && f->_IO_read_ptr == a->rptr + bytes;
}

/* May f's buffered calls be summed (io_buffered)?  On a file or a terminal,
 * yes; on a pipe or a socket their writes and reads stay events, which the
 * critical path matches across threads and processes.  The kind is taken
 * again after any descriptor of the process was closed or replaced (a
 * dup2 of a pipe onto stdout's number): one fstat per stream then. */
static bool summable(FILE *f, struct shadow *s)
{
	if (!s)
		return false;
	uint32_t changes = io_fd_changes();
	if (!s->kind || s->kind_at != changes) {
		struct stat st;
		s->kind_at = changes;
		s->kind = !syscall(SYS_fstat, f->_fileno, &st) &&
					  (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
				  ? SUMMED
				  : EVENTS;
	}
	return s->kind == SUMMED;
}

/* A call of `bytes` on side op (inline bytes b before it, the buffer at a)
 * that stayed in f's buffer, summed: true; false if it must be an event. */
static bool summed(struct trace_caller at, FILE *f, struct shadow *s, uint16_t op, int64_t bytes,
		   const struct inline_bytes *b, const struct buf_at *a, uint64_t t0)
{
	uint64_t same = op == EXP_IO_READ ? b->r : b->w, other = op == EXP_IO_READ ? b->w : b->r;

	if (other || !stayed(f, a, op, bytes) || !summable(f, s) ||
	    !io_buffered(at, op, f->_fileno, (uint64_t)bytes + same, t0))
		return false;
	mark_at(f, s);
	return true;
}

/* The inline bytes of the side that is not the call's own, beside it. */
static void note_other(uint32_t id, const struct inline_bytes *b, uint16_t op, FILE *f, uint64_t t0)
{
	if (op != EXP_IO_READ && b->r)
		io_note_same(id, EXP_IO_READ, f->_fileno, (int64_t)b->r, t0);
	if (op != EXP_IO_WRITE && b->w)
		io_note_same(id, EXP_IO_WRITE, f->_fileno, (int64_t)b->w, t0);
}

/* Is `f` a stream we trace (a file, not memory)? */
static bool traced(FILE *f)
{
	return f && f->_fileno >= 0 && io_tracing();
}

/* ---- moving data -------------------------------------------------------- */

/* One call on stream f that moved `bytes` (or failed: -errno) on the `op`
 * side; inline bytes found before it join it (same side) or ride beside it. */
static void moved(struct trace_caller at, FILE *f, uint16_t op, int64_t bytes,
		  const struct inline_bytes *b, uint64_t t0)
{
	uint64_t same = op == EXP_IO_READ ? b->r : op == EXP_IO_WRITE ? b->w : 0;
	uint32_t id = io_note(at, op, f->_fileno, bytes < 0 ? bytes : bytes + (int64_t)same, t0);
	if (bytes < 0 && same)
		io_note_same(id, op, f->_fileno, (int64_t)same, t0);
	note_other(id, b, op, f, t0);
	mark(f);
}

/* The body of a call on stream `f` moving `bytes_expr` bytes on side `op`
 * (evaluated after the call, with the result in rc_): summed if it stayed
 * in the buffer, else an event. */
#define STREAM_CALL(f, op, call, bytes_expr)                                 \
	do {                                                                 \
		if (!traced(f))                                              \
			return call;                                         \
		struct trace_caller at_ = TRACE_CALLER();                    \
		uint64_t t0_ = tally__now();                                 \
		struct shadow *s_ = shadow_of(f, true);                      \
		struct inline_bytes b_ = inline_since_at(f, s_);             \
		struct buf_at a_ = buf_now(f);                               \
		__typeof__(call) rc_ = call;                                 \
		int saved_ = errno;                                          \
		int64_t n_ = (bytes_expr);                                   \
		if (!summed(at_, f, s_, op, n_, &b_, &a_, t0_))              \
			moved(at_, f, op, n_, &b_, t0_);                     \
		errno = saved_;                                              \
		return rc_;                                                  \
	} while (0)

/* Items times size, or -errno when none moved because of an error. */
#define ITEMS(f, size) (rc_ || !ferror(f) ? (int64_t)(rc_ * (size)) : -(int64_t)saved_)
#define STRING_WRITTEN(s) (rc_ < 0 ? -(int64_t)saved_ : (int64_t)strlen(s))
#define LINE_READ(f) (rc_ ? (int64_t)strlen(rc_) : ferror(f) ? -(int64_t)saved_ : 0)
#define COUNT_OR_ERROR (rc_ < 0 ? -(int64_t)saved_ : (int64_t)rc_)

TRACE_API size_t fread(void *buf, size_t size, size_t n, FILE *f)
{
	STREAM_CALL(f, EXP_IO_READ, REAL(fread)(buf, size, n, f), ITEMS(f, size));
}

TRACE_API size_t fread_unlocked(void *buf, size_t size, size_t n, FILE *f)
{
	STREAM_CALL(f, EXP_IO_READ, REAL(fread_unlocked)(buf, size, n, f), ITEMS(f, size));
}

TRACE_API size_t __fread_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *f)
{
	STREAM_CALL(f, EXP_IO_READ, REAL(__fread_chk)(buf, buflen, size, n, f), ITEMS(f, size));
}

TRACE_API size_t __fread_unlocked_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *f)
{
	STREAM_CALL(f, EXP_IO_READ, REAL(__fread_unlocked_chk)(buf, buflen, size, n, f),
		    ITEMS(f, size));
}

TRACE_API size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
	STREAM_CALL(f, EXP_IO_WRITE, REAL(fwrite)(buf, size, n, f), ITEMS(f, size));
}

TRACE_API size_t fwrite_unlocked(const void *buf, size_t size, size_t n, FILE *f)
{
	STREAM_CALL(f, EXP_IO_WRITE, REAL(fwrite_unlocked)(buf, size, n, f), ITEMS(f, size));
}

TRACE_API int fputs(const char *s, FILE *f)
{
	STREAM_CALL(f, EXP_IO_WRITE, REAL(fputs)(s, f), STRING_WRITTEN(s));
}

TRACE_API int fputs_unlocked(const char *s, FILE *f)
{
	STREAM_CALL(f, EXP_IO_WRITE, REAL(fputs_unlocked)(s, f), STRING_WRITTEN(s));
}

TRACE_API int puts(const char *s)
{
	STREAM_CALL(stdout, EXP_IO_WRITE, REAL(puts)(s), rc_ < 0 ? -(int64_t)saved_ : (int64_t)strlen(s) + 1);
}

TRACE_API char *fgets(char *s, int n, FILE *f)
{
	STREAM_CALL(f, EXP_IO_READ, REAL(fgets)(s, n, f), LINE_READ(f));
}

TRACE_API char *fgets_unlocked(char *s, int n, FILE *f)
{
	STREAM_CALL(f, EXP_IO_READ, REAL(fgets_unlocked)(s, n, f), LINE_READ(f));
}

TRACE_API char *__fgets_chk(char *s, size_t buflen, int n, FILE *f)
{
	STREAM_CALL(f, EXP_IO_READ, REAL(__fgets_chk)(s, buflen, n, f), LINE_READ(f));
}

TRACE_API char *__fgets_unlocked_chk(char *s, size_t buflen, int n, FILE *f)
{
	STREAM_CALL(f, EXP_IO_READ, REAL(__fgets_unlocked_chk)(s, buflen, n, f), LINE_READ(f));
}

/* getline returns -1 at the end of the file as on an error. */
#define GETLINE_READ(f) (rc_ >= 0 ? (int64_t)rc_ : ferror(f) ? -(int64_t)saved_ : 0)

TRACE_API ssize_t getline(char **line, size_t *cap, FILE *f)
{
	STREAM_CALL(f, EXP_IO_READ, REAL(getline)(line, cap, f), GETLINE_READ(f));
}

TRACE_API ssize_t getdelim(char **line, size_t *cap, int delim, FILE *f)
{
	STREAM_CALL(f, EXP_IO_READ, REAL(getdelim)(line, cap, delim, f), GETLINE_READ(f));
}

TRACE_API ssize_t __getdelim(char **line, size_t *cap, int delim, FILE *f)
{
	STREAM_CALL(f, EXP_IO_READ, REAL(__getdelim)(line, cap, delim, f), GETLINE_READ(f));
}

/* ---- printf ------------------------------------------------------------- */

TRACE_API int vfprintf(FILE *f, const char *fmt, va_list ap)
{
	STREAM_CALL(f, EXP_IO_WRITE, REAL(vfprintf)(f, fmt, ap), COUNT_OR_ERROR);
}

TRACE_API int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
	STREAM_CALL(f, EXP_IO_WRITE, REAL(__vfprintf_chk)(f, flag, fmt, ap), COUNT_OR_ERROR);
}

/* The variadic forms pass through the va_list forms: one record each. */
#define VA_FORWARD(last, call)                                               \
	do {                                                                 \
		va_list ap;                                                  \
		va_start(ap, last);                                          \
		int rc = call;                                               \
		va_end(ap);                                                  \
		return rc;                                                   \
	} while (0)

TRACE_API int fprintf(FILE *f, const char *fmt, ...)
{
	VA_FORWARD(fmt, vfprintf(f, fmt, ap));
}

TRACE_API int printf(const char *fmt, ...)
{
	VA_FORWARD(fmt, vfprintf(stdout, fmt, ap));
}

TRACE_API int vprintf(const char *fmt, va_list ap)
{
	return vfprintf(stdout, fmt, ap);
}

TRACE_API int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
	VA_FORWARD(fmt, __vfprintf_chk(f, flag, fmt, ap));
}

TRACE_API int __printf_chk(int flag, const char *fmt, ...)
{
	VA_FORWARD(fmt, __vfprintf_chk(stdout, flag, fmt, ap));
}

TRACE_API int __vprintf_chk(int flag, const char *fmt, va_list ap)
{
	return __vfprintf_chk(stdout, flag, fmt, ap);
}

/* dprintf writes to a descriptor, not a stream. */
#define FD_PRINT(fd, call) IO_FD_CALL(EXP_IO_WRITE, fd, call, COUNT_OR_ERROR)

TRACE_API int vdprintf(int fd, const char *fmt, va_list ap)
{
	FD_PRINT(fd, REAL(vdprintf)(fd, fmt, ap));
}

TRACE_API int __vdprintf_chk(int fd, int flag, const char *fmt, va_list ap)
{
	FD_PRINT(fd, REAL(__vdprintf_chk)(fd, flag, fmt, ap));
}

TRACE_API int dprintf(int fd, const char *fmt, ...)
{
	VA_FORWARD(fmt, vdprintf(fd, fmt, ap));
}

TRACE_API int __dprintf_chk(int fd, int flag, const char *fmt, ...)
{
	VA_FORWARD(fmt, __vdprintf_chk(fd, flag, fmt, ap));
}

/* ---- scanf -------------------------------------------------------------- */

/* Bytes a scanf took from f: the change of position where there is one,
 * else what it took from the buffer (a lower bound). */
static int64_t scanned(FILE *f, off_t pos0, const char *base0, const char *ptr0)
{
	off_t pos1 = pos0 >= 0 ? ftello(f) : -1;

	if (pos0 >= 0 && pos1 >= pos0)
		return pos1 - pos0;
	if (f->_IO_read_base == base0 && f->_IO_read_ptr >= ptr0)
		return f->_IO_read_ptr - ptr0;
	return f->_IO_read_ptr > f->_IO_read_base ? f->_IO_read_ptr - f->_IO_read_base : 0;
}

#define SCAN_CALL(f, call)                                                   \
	do {                                                                 \
		if (!traced(f))                                              \
			return call;                                         \
		struct trace_caller at_ = TRACE_CALLER();                    \
		uint64_t t0_ = tally__now();                                 \
		struct inline_bytes b_ = inline_since(f);                    \
		int e_ = errno;                                              \
		off_t pos0_ = ftello(f);                                     \
		const char *base0_ = f->_IO_read_base, *ptr0_ = f->_IO_read_ptr; \
		errno = e_;                                                  \
		int rc_ = call;                                              \
		int saved_ = errno;                                          \
		moved(at_, f, EXP_IO_READ, scanned(f, pos0_, base0_, ptr0_), &b_, t0_); \
		errno = saved_;                                              \
		return rc_;                                                  \
	} while (0)

/* The headers rename scanf to its ISO C99 form (__isoc99_scanf); the GNU
 * forms, under their own names, are defined through asm labels. */
int io_gnu_vfscanf(FILE *f, const char *fmt, va_list ap) __asm__("vfscanf");
int io_gnu_vscanf(const char *fmt, va_list ap) __asm__("vscanf");
int io_gnu_fscanf(FILE *f, const char *fmt, ...) __asm__("fscanf");
int io_gnu_scanf(const char *fmt, ...) __asm__("scanf");

TRACE_API int io_gnu_vfscanf(FILE *f, const char *fmt, va_list ap)
{
	SCAN_CALL(f, REAL(vfscanf)(f, fmt, ap));
}

TRACE_API int __isoc99_vfscanf(FILE *f, const char *fmt, va_list ap)
{
	SCAN_CALL(f, REAL(__isoc99_vfscanf)(f, fmt, ap));
}

TRACE_API int io_gnu_vscanf(const char *fmt, va_list ap)
{
	return io_gnu_vfscanf(stdin, fmt, ap);
}

TRACE_API int __isoc99_vscanf(const char *fmt, va_list ap)
{
	return __isoc99_vfscanf(stdin, fmt, ap);
}

TRACE_API int io_gnu_fscanf(FILE *f, const char *fmt, ...)
{
	VA_FORWARD(fmt, io_gnu_vfscanf(f, fmt, ap));
}

TRACE_API int io_gnu_scanf(const char *fmt, ...)
{
	VA_FORWARD(fmt, io_gnu_vfscanf(stdin, fmt, ap));
}

TRACE_API int __isoc99_fscanf(FILE *f, const char *fmt, ...)
{
	VA_FORWARD(fmt, __isoc99_vfscanf(f, fmt, ap));
}

TRACE_API int __isoc99_scanf(const char *fmt, ...)
{
	VA_FORWARD(fmt, __isoc99_vfscanf(stdin, fmt, ap));
}

/* ---- one character at a time -------------------------------------------- */

/* A one-character call on f: joins the thread's run (io.h), with the inline
 * bytes found before it; a failure is a record of its own. */
static void one_char(struct trace_caller at, FILE *f, uint16_t op, int rc,
		     const struct inline_bytes *b, uint64_t t0, int err)
{
	uint64_t same = op == EXP_IO_READ ? b->r : b->w;

	if (rc == EOF && (op == EXP_IO_WRITE || ferror(f))) {
		moved(at, f, op, -(int64_t)err, b, t0);
		return;
	}
	io_one(f, at, op, f->_fileno, (rc == EOF ? 0 : 1) + same, t0);
	if (b->r || b->w) {
		struct inline_bytes other = { op == EXP_IO_READ ? 0 : b->r, op == EXP_IO_WRITE ? 0 : b->w };
		if (other.r || other.w) {
			uint32_t id = io_note(at, EXP_IO_OTHER, f->_fileno, 0, t0);
			note_other(id, &other, EXP_IO_OTHER, f, t0);
		}
	}
	mark(f);
}

#define CHAR_CALL(f, op, call)                                               \
	do {                                                                 \
		if (!traced(f))                                              \
			return call;                                         \
		struct trace_caller at_ = TRACE_CALLER();                    \
		uint64_t t0_ = tally__now();                                 \
		struct shadow *s_ = shadow_of(f, true);                      \
		struct inline_bytes b_ = inline_since_at(f, s_);             \
		struct buf_at a_ = buf_now(f);                               \
		int rc_ = call;                                              \
		int saved_ = errno;                                          \
		if (rc_ == EOF || !summed(at_, f, s_, op, 1, &b_, &a_, t0_)) \
			one_char(at_, f, op, rc_, &b_, t0_, saved_);         \
		errno = saved_;                                              \
		return rc_;                                                  \
	} while (0)

TRACE_API int fgetc(FILE *f)
{
	CHAR_CALL(f, EXP_IO_READ, REAL(fgetc)(f));
}

TRACE_API int getc(FILE *f)
{
	CHAR_CALL(f, EXP_IO_READ, REAL(getc)(f));
}

TRACE_API int _IO_getc(FILE *f)
{
	CHAR_CALL(f, EXP_IO_READ, REAL(_IO_getc)(f));
}

TRACE_API int fgetc_unlocked(FILE *f)
{
	CHAR_CALL(f, EXP_IO_READ, REAL(fgetc_unlocked)(f));
}

TRACE_API int getc_unlocked(FILE *f)
{
	CHAR_CALL(f, EXP_IO_READ, REAL(getc_unlocked)(f));
}

TRACE_API int getchar(void)
{
	CHAR_CALL(stdin, EXP_IO_READ, REAL(getchar)());
}

TRACE_API int getchar_unlocked(void)
{
	CHAR_CALL(stdin, EXP_IO_READ, REAL(getchar_unlocked)());
}

/* Inline getc_unlocked found the buffer empty. */
TRACE_API int __uflow(FILE *f)
{
	CHAR_CALL(f, EXP_IO_READ, REAL(__uflow)(f));
}

TRACE_API int fputc(int c, FILE *f)
{
	CHAR_CALL(f, EXP_IO_WRITE, REAL(fputc)(c, f));
}

TRACE_API int putc(int c, FILE *f)
{
	CHAR_CALL(f, EXP_IO_WRITE, REAL(putc)(c, f));
}

TRACE_API int _IO_putc(int c, FILE *f)
{
	CHAR_CALL(f, EXP_IO_WRITE, REAL(_IO_putc)(c, f));
}

TRACE_API int fputc_unlocked(int c, FILE *f)
{
	CHAR_CALL(f, EXP_IO_WRITE, REAL(fputc_unlocked)(c, f));
}

TRACE_API int putc_unlocked(int c, FILE *f)
{
	CHAR_CALL(f, EXP_IO_WRITE, REAL(putc_unlocked)(c, f));
}

TRACE_API int putchar(int c)
{
	CHAR_CALL(stdout, EXP_IO_WRITE, REAL(putchar)(c));
}

TRACE_API int putchar_unlocked(int c)
{
	CHAR_CALL(stdout, EXP_IO_WRITE, REAL(putchar_unlocked)(c));
}

/* Inline putc_unlocked found the buffer full (c: the character it was
 * putting; EOF only flushes). */
TRACE_API int __overflow(FILE *f, int c)
{
	if (c == EOF || !traced(f))
		return REAL(__overflow)(f, c);
	CHAR_CALL(f, EXP_IO_WRITE, REAL(__overflow)(f, c));
}

/* ---- opening, closing, flushing, seeking -------------------------------- */

static FILE *fopened(struct trace_caller at, FILE *f, const char *path, uint64_t t0)
{
	int saved = errno;
	int fd = f ? f->_fileno : -1;

	if (f && fd < 0)
		return f;
	io_run_end();
	if (f) {
		shadow_forget(f);        /* a new stream where an old one was */
		io_name_fd(fd, path, t0);
	}
	io_note(at, EXP_IO_OPEN, fd, f ? 0 : -(int64_t)saved, t0);
	errno = saved;
	return f;
}

#define OPEN_CALL(path, call)                                                \
	do {                                                                 \
		if (!io_tracing())                                           \
			return call;                                         \
		uint64_t t0_ = tally__now();                                 \
		return fopened(TRACE_CALLER(), call, path, t0_);             \
	} while (0)

TRACE_API FILE *fopen(const char *path, const char *mode)
{
	OPEN_CALL(path, REAL(fopen)(path, mode));
}

TRACE_API FILE *fopen64(const char *path, const char *mode)
{
	OPEN_CALL(path, REAL(fopen64)(path, mode));
}

TRACE_API FILE *fdopen(int fd, const char *mode)
{
	OPEN_CALL(NULL, REAL(fdopen)(fd, mode));
}

TRACE_API FILE *tmpfile(void)
{
	OPEN_CALL(NULL, REAL(tmpfile)());
}

TRACE_API FILE *tmpfile64(void)
{
	OPEN_CALL(NULL, REAL(tmpfile64)());
}

TRACE_API FILE *popen(const char *cmd, const char *mode)
{
	OPEN_CALL(NULL, REAL(popen)(cmd, mode));
}

/* Inline bytes left in f's buffer are the program's: record them (with the
 * stack of the call that flushes, closes or seeks) before the call. */
static uint32_t settle(struct trace_caller at, FILE *f, uint16_t op, int64_t result, uint64_t t0,
		       const struct inline_bytes *b)
{
	uint32_t id = io_note(at, op, f->_fileno, result, t0);
	note_other(id, b, EXP_IO_OTHER, f, t0);
	return id;
}

TRACE_API FILE *freopen(const char *path, const char *mode, FILE *f)
{
	if (!traced(f))
		return REAL(freopen)(path, mode, f);
	struct trace_caller at = TRACE_CALLER();
	uint64_t t0 = tally__now();
	struct inline_bytes b = inline_since(f);
	int fd = f->_fileno;
	if (b.r || b.w)
		settle(at, f, EXP_IO_OTHER, 0, t0, &b);
	io_run_end();
	io_buffered_flush(fd);            /* while fd is still its file */
	FILE *rc = REAL(freopen)(path, mode, f);
	int saved = errno;
	io_fd_closed(fd, fd);
	fopened(at, rc, path, t0);
	errno = saved;
	return rc;
}

TRACE_API FILE *freopen64(const char *path, const char *mode, FILE *f)
{
	return freopen(path, mode, f);
}

/* Close (or pclose) f: its inline bytes, then the close. */
#define CLOSE_CALL(f, call)                                                  \
	do {                                                                 \
		if (!traced(f))                                              \
			return call;                                         \
		struct trace_caller at_ = TRACE_CALLER();                    \
		uint64_t t0_ = tally__now();                                 \
		struct inline_bytes b_ = inline_since(f);                    \
		int fd_ = f->_fileno;                                        \
		shadow_forget(f);                                            \
		io_run_end();                                                \
		io_buffered_flush(fd_);       /* while fd_ is its file */   \
		int rc_ = call;                                              \
		int saved_ = errno;                                          \
		io_fd_closed(fd_, fd_);                                      \
		uint32_t id_ = io_note(at_, EXP_IO_CLOSE, fd_, rc_ == EOF ? -(int64_t)saved_ : 0, t0_); \
		if (b_.r)                                                    \
			io_note_same(id_, EXP_IO_READ, fd_, (int64_t)b_.r, t0_); \
		if (b_.w)                                                    \
			io_note_same(id_, EXP_IO_WRITE, fd_, (int64_t)b_.w, t0_); \
		errno = saved_;                                              \
		return rc_;                                                  \
	} while (0)

TRACE_API int fclose(FILE *f)
{
	CLOSE_CALL(f, REAL(fclose)(f));
}

TRACE_API int pclose(FILE *f)
{
	CLOSE_CALL(f, REAL(pclose)(f));
}

/* Every stream glibc has open (its list, as fflush(NULL) walks it). */
extern FILE *_IO_list_all;

void _IO_list_lock(void);
void _IO_list_unlock(void);

/* Inline bytes left in every open stream's buffer, recorded now as riding
 * on a flush of it (fflush(NULL), fcloseall, and exit, which flushes). */
static void settle_all(struct trace_caller at, uint64_t t0)
{
	_IO_list_lock();
	for (FILE *f = _IO_list_all; f; f = f->_chain) {
		if (f->_fileno < 0 || !shadow_of(f, false))
			continue;
		struct inline_bytes b = inline_since(f);
		if (b.r || b.w)
			settle(at, f, EXP_IO_SYNC, 0, t0, &b);
		mark(f);
	}
	_IO_list_unlock();
}

TRACE_API int fcloseall(void)
{
	if (!io_tracing())
		return REAL(fcloseall)();
	settle_all(TRACE_CALLER(), tally__now());
	for (size_t i = 0; i < SHADOWS; i++)
		atomic_store(&shadows[i].f, NULL);
	return REAL(fcloseall)();
}

#define FLUSH_CALL(f, call)                                                  \
	do {                                                                 \
		if (!f) {                                                    \
			if (io_tracing())                                    \
				settle_all(TRACE_CALLER(), tally__now());    \
			return call;                                         \
		}                                                            \
		if (!traced(f))                                              \
			return call;                                         \
		struct trace_caller at_ = TRACE_CALLER();                    \
		uint64_t t0_ = tally__now();                                 \
		struct inline_bytes b_ = inline_since(f);                    \
		int rc_ = call;                                              \
		int saved_ = errno;                                          \
		settle(at_, f, EXP_IO_SYNC, rc_ == EOF ? -(int64_t)saved_ : 0, t0_, &b_); \
		mark(f);                                                     \
		errno = saved_;                                              \
		return rc_;                                                  \
	} while (0)

TRACE_API int fflush(FILE *f)
{
	FLUSH_CALL(f, REAL(fflush)(f));
}

TRACE_API int fflush_unlocked(FILE *f)
{
	FLUSH_CALL(f, REAL(fflush_unlocked)(f));
}

#define SEEK_CALL(f, call)                                                   \
	do {                                                                 \
		if (!traced(f))                                              \
			return call;                                         \
		struct trace_caller at_ = TRACE_CALLER();                    \
		uint64_t t0_ = tally__now();                                 \
		struct inline_bytes b_ = inline_since(f);                    \
		__typeof__(call) rc_ = call;                                 \
		int saved_ = errno;                                          \
		settle(at_, f, EXP_IO_SEEK, rc_ != 0 ? -(int64_t)saved_ : 0, t0_, &b_); \
		mark(f);                                                     \
		errno = saved_;                                              \
		return rc_;                                                  \
	} while (0)

TRACE_API int fseek(FILE *f, long off, int whence)
{
	SEEK_CALL(f, REAL(fseek)(f, off, whence));
}

TRACE_API int fseeko(FILE *f, off_t off, int whence)
{
	SEEK_CALL(f, REAL(fseeko)(f, off, whence));
}

TRACE_API int fseeko64(FILE *f, off_t off, int whence)
{
	SEEK_CALL(f, REAL(fseeko64)(f, off, whence));
}

TRACE_API int fsetpos(FILE *f, const fpos_t *pos)
{
	SEEK_CALL(f, REAL(fsetpos)(f, pos));
}

TRACE_API int fsetpos64(FILE *f, const fpos64_t *pos)
{
	SEEK_CALL(f, REAL(fsetpos64)(f, pos));
}

TRACE_API void rewind(FILE *f)
{
	if (!traced(f)) {
		REAL(rewind)(f);
		return;
	}
	struct trace_caller at = TRACE_CALLER();
	uint64_t t0 = tally__now();
	struct inline_bytes b = inline_since(f);
	REAL(rewind)(f);
	int saved = errno;
	settle(at, f, EXP_IO_SEEK, 0, t0, &b);
	mark(f);
	errno = saved;
}

/* At exit (before glibc flushes the streams), what inline code left in
 * their buffers, with the exit's stack. */
__attribute__((destructor)) static void io_stdio_fini(void)
{
	if (io_tracing())
		settle_all(TRACE_CALLER(), tally__now());
}
