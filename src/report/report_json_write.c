/* SPDX-License-Identifier: MIT
 *
 * report_json_write.c — JSON strings for every writer of JSON (report tables, the
 * speedscope and chrome exports, the HTML report's data).  `<`, `>` and `&`
 * are escaped too, so the same text is safe inside an HTML <script> block.
 */
#include "report/report_json_write.h"

void report_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
