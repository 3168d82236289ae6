/* SPDX-License-Identifier: MIT
 *
 * report_json.h — a small JSON reader (report_json.c), for the files other
 * tools leave beside a build: gcc's -fsave-optimization-record output.
 */
#ifndef TALLY_REPORT_JSON_H
#define TALLY_REPORT_JSON_H

#include <stddef.h>

enum rj_type { RJ_NULL, RJ_BOOL, RJ_NUM, RJ_STR, RJ_ARR, RJ_OBJ };

struct rj {
	enum rj_type type;
	double num;                /* RJ_NUM, RJ_BOOL (0 or 1) */
	char *str;                 /* RJ_STR */
	struct rj *items;          /* RJ_ARR, RJ_OBJ: values */
	char **keys;               /* RJ_OBJ: keys */
	size_t n;
};

/* Parse `len` bytes; NULL with `err` on bad input (nesting deeper than 200
 * is bad input).  Free with rj_free. */
struct rj *rj_parse(const char *text, size_t len, char *err, size_t errlen);
/* Member `key` of an object, or NULL. */
const struct rj *rj_get(const struct rj *obj, const char *key);
void rj_free(struct rj *v);

#endif
