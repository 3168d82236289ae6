/* SPDX-License-Identifier: MIT
 *
 * report_clean.c — names made safe for a terminal.
 *
 * Function names (perf maps, tally_func_load, demangled symbols), thread
 * names, marker names, file names and source lines come from the profiled
 * program; printed raw they could drive the terminal of whoever reads the
 * report (ESC sequences that recolour, retitle or rewrite the screen, BEL,
 * CR overwriting a line).  Every text and CSV cell, key/value item, title
 * and note goes through report_clean (report_table.c): C0 controls but TAB
 * (and, in notes, newline and form feed: gprof's listing parts its pages
 * with "\f", as `gprof -b` does, and a form feed drives no terminal), DEL, the C1 controls (U+0080-U+009F: a UTF-8
 * terminal takes U+009B as CSI) and bytes that are not valid UTF-8 (a
 * Latin-1 terminal takes 0x9B as CSI) are shown as "\xNN".  Valid UTF-8
 * otherwise passes unchanged.  The text exports (collapsed stacks, arcs,
 * callgrind) write names through report_clean_fputs: one name per field,
 * a newline in a name would also break their lines.  JSON escapes on its
 * own; HTML too.  Pure
 * functions, any thread.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_clean.h"

/* Length of the valid, non-control UTF-8 sequence at `s` (1 for plain
 * ASCII), or 0 if the byte at `s` must be escaped. */
static size_t clean_len(const unsigned char *s, bool keep_newlines)
{
	unsigned char b = s[0];
	size_t n;
	uint32_t cp, min;

	if (b < 0x20)
		return b == '\t' || ((b == '\n' || b == '\f') && keep_newlines) ? 1 : 0;
	if (b < 0x7f)
		return 1;
	if (b == 0x7f || b < 0xc2 || b > 0xf4)
		return 0;
	n = b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
	cp = b & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
	min = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

bool report_clean_needed(const char *s, bool keep_newlines)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = clean_len(p, keep_newlines);
		if (!n)
			return true;
		p += n;
	}
	return false;
}

size_t report_clean(char *out, const char *in, bool keep_newlines)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)in;
	size_t o = 0;

	while (*p) {
		size_t n = clean_len(p, keep_newlines);
		if (n) {
			memcpy(out + o, p, n);
			o += n;
			p += n;
			continue;
		}
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hex[*p >> 4];
		out[o++] = hex[*p & 15];
		p++;
	}
	out[o] = 0;
	return o;
}

char *report_clean_dup(const char *s, bool keep_newlines)
{
	char *out = malloc(4 * strlen(s) + 1);

	if (out)
		report_clean(out, s, keep_newlines);
	return out;
}

int report_clean_fputs(const char *s, FILE *out)
{
	char small[1024];

	if (!report_clean_needed(s, false))
		return fputs(s, out) < 0 ? -EIO : 0;
	if (4 * strlen(s) + 1 <= sizeof(small)) {
		report_clean(small, s, false);
		return fputs(small, out) < 0 ? -EIO : 0;
	}
	char *c = report_clean_dup(s, false);
	if (!c)
		return -ENOMEM;
	int rc = fputs(c, out) < 0 ? -EIO : 0;
	free(c);
	return rc;
}
