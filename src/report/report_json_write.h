/* SPDX-License-Identifier: MIT
 *
 * report_json_write.h — the one JSON string writer (report_json_write.c); the
 * reader is report_json.h.
 */
#ifndef TALLY_REPORT_JSON_WRITE_H
#define TALLY_REPORT_JSON_WRITE_H

#include <stdio.h>

/* `s` as a quoted JSON string, safe inside an HTML <script> element. */
void report_json_string(FILE *f, const char *s);

#endif
