/* SPDX-License-Identifier: MIT
 *
 * col_log.h — the collector's lines in the experiment's log.txt (a
 * descendant's: in its process file, LINEAGE.proc, with its threads'
 * records: col_log_record_sigsafe).
 */
#ifndef TALLY_COL_LOG_H
#define TALLY_COL_LOG_H

#include <stdbool.h>
#include <stdint.h>

/* Append "key: value" lines to log.txt (nothing before it is open).  Any
 * context, signal handlers included. */
void col_log_sigsafe(const char *key, const char *value);

/* The longest line. */
#define COL_LOG_LINE_MAX 1024

/* Lines gathered on the caller's stack and appended with one write(2)
 * (the start of a process writes a dozen: one write, and one check of the
 * log's descriptor, instead of four system calls a line).  Start with
 * n = 0; add; write (also when full).  Sigsafe. */
struct col_log_batch {
	char buf[4 * COL_LOG_LINE_MAX];
	size_t n;
};
void col_log_batch_add(struct col_log_batch *b, const char *key, const char *value);
void col_log_batch_u64(struct col_log_batch *b, const char *key, uint64_t value);
void col_log_batch_write(struct col_log_batch *b);

void col_log_u64_sigsafe(const char *key, uint64_t value);

/* "error: WHAT: errno N (CONSEQUENCE)": a call of our own failed and what
 * it cost.  Any context. */
void col_log_error_sigsafe(const char *what, int err, const char *consequence);

/* The same, in the log at `log_path` (another process's: a descendant
 * that could not make its own); false when that log cannot be opened. */
bool col_log_error_in(const char *log_path, const char *what, int err, const char *consequence);

/* Append one record (`rec`, `len` bytes, its first word set here from
 * `type` and `len`) to the process file, with one write(2): a NUL, the
 * record, a newline (exp_records.h, the process file).  0, or -1 if it
 * could not be written whole.  Any context. */
int col_log_record_sigsafe(uint32_t type, const void *rec, uint32_t len);

/* Stop holding the log's descriptor (a lean descendant, once its
 * directory is made: the directory reaches its process file too, so it
 * holds two descriptors, the directory and its clock): later lines open
 * the log for each use.  A write in progress on the old descriptor keeps
 * it: the last such write closes it (never a bounded wait, after which its
 * number could be the program's while the write goes on).  Sigsafe. */
void col_log_let_go(void);

/* The calling thread's log lines and records from now on are kept (4 KiB;
 * beyond, what is kept is written first) and written with one write(2) by
 * col_log_flush_sigsafe (records lost then are counted): the process's
 * start and its end, where they were four writes each (and each write two
 * more system calls for its signal mask, exp_write_sys.c).  Sigsafe. */
void col_log_hold_sigsafe(void);
void col_log_flush_sigsafe(void);

/* A deferred fork child (col_files_defer): the calling thread's held lines
 * kept, not written, until its process file is made; the first write to
 * the log then writes them first.  col_log_unpark drops them (a fork child
 * of a child still deferred: they are its parent's). */
void col_log_park_sigsafe(void);
void col_log_write_parked_sigsafe(void);     /* now, if any (its file made) */
void col_log_unpark(void);

/* Decimal digits of v into buf (>= 21 bytes); returns length. */
int col_fmt_u64_sigsafe(char *buf, uint64_t v);

/* Lowercase hex digits of v, no prefix, into buf (>= 17 bytes). */
int col_fmt_x64_sigsafe(char *buf, uint64_t v);

#endif
