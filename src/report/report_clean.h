/* SPDX-License-Identifier: MIT
 *
 * report_clean.h — names made safe for a terminal: the one neutraliser of
 * every text (and CSV) writer (report_clean.c says what it changes).
 */
#ifndef TALLY_REPORT_CLEAN_H
#define TALLY_REPORT_CLEAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Does `s` hold anything report_clean would change? */
bool report_clean_needed(const char *s, bool keep_newlines);
/* Write the clean form of `in` into `out`, which has room for
 * 4 * strlen(in) + 1 bytes; returns its length.  Control characters (C0
 * but TAB, and newline and form feed when `keep_newlines`; DEL; C1 as U+0080-U+009F or
 * bare bytes) and bytes of no valid UTF-8 sequence become "\xNN". */
size_t report_clean(char *out, const char *in, bool keep_newlines);
/* A malloc'd clean copy of `s`, or NULL when out of memory. */
char *report_clean_dup(const char *s, bool keep_newlines);
/* Write the clean form of `s` (newlines escaped too) to `out`: 0, -ENOMEM
 * or -EIO (the stream's error is then set as well). */
int report_clean_fputs(const char *s, FILE *out);

#endif
