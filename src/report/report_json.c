/* SPDX-License-Identifier: MIT
 *
 * report_json.c — a small JSON reader (see report_json.h): recursive
 * descent into a tree of struct rj, strings unescaped (\uXXXX as UTF-8,
 * surrogate pairs joined).  The input is untrusted: every read is bounded
 * by its length and nesting by RJ_DEPTH.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_json.h"

#define RJ_DEPTH 200

struct rd {
	const char *p, *end;
	const char *err;
};

static void skip_ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static int hex4(struct rd *r)
{
	int v = 0;

	if (r->end - r->p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = *r->p++;
		v = v * 16 + (c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			      c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1000);
	}
	return v < 0 ? -1 : v;
}

/* A string at r->p (after its opening quote), malloc'd. */
static char *parse_string(struct rd *r)
{
	size_t cap = 32, n = 0;
	char *s = malloc(cap);

	while (s && r->p < r->end && *r->p != '"') {
		unsigned cp = (unsigned char)*r->p++;
		if (cp == '\\') {
			if (r->p >= r->end)
				break;
			char c = *r->p++;
			cp = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b' :
			     c == 'f' ? '\f' : (unsigned char)c;
			if (c == 'u') {
				int v = hex4(r);
				if (v < 0)
					break;
				cp = (unsigned)v;
				if (cp >= 0xd800 && cp < 0xdc00 && r->end - r->p >= 6 && r->p[0] == '\\' &&
				    r->p[1] == 'u') {
					r->p += 2;
					int lo = hex4(r);
					if (lo < 0xdc00 || lo >= 0xe000)
						break;
					cp = 0x10000 + ((cp - 0xd800) << 10) + ((unsigned)lo - 0xdc00);
				}
			}
		}
		if (n + 5 >= cap) {
			char *q = realloc(s, cap *= 2);
			if (!q)
				break;
			s = q;
		}
		if (cp < 0x80) {
			s[n++] = (char)cp;
		} else if (cp < 0x800) {
			s[n++] = (char)(0xc0 | cp >> 6);
			s[n++] = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			s[n++] = (char)(0xe0 | cp >> 12);
			s[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
			s[n++] = (char)(0x80 | (cp & 0x3f));
		} else {
			s[n++] = (char)(0xf0 | cp >> 18);
			s[n++] = (char)(0x80 | ((cp >> 12) & 0x3f));
			s[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
			s[n++] = (char)(0x80 | (cp & 0x3f));
		}
	}
	if (!s || r->p >= r->end || *r->p != '"') {
		free(s);
		r->err = "bad string";
		return NULL;
	}
	r->p++;
	s[n] = 0;
	return s;
}

static int parse_value(struct rd *r, struct rj *v, int depth);

/* Elements of an array or members of an object, up to `close`. */
static int parse_items(struct rd *r, struct rj *v, char close, int depth)
{
	size_t cap = 0;

	skip_ws(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		if (v->n == cap) {
			cap = cap ? cap * 2 : 8;
			struct rj *q = realloc(v->items, cap * sizeof(*q));
			char **k = close == '}' ? realloc(v->keys, cap * sizeof(*k)) : v->keys;
			if (q)
				v->items = q;
			if (k)
				v->keys = k;
			if (!q || (close == '}' && !k)) {
				r->err = "out of memory";
				return -1;
			}
		}
		skip_ws(r);
		if (close == '}') {
			if (r->p >= r->end || *r->p != '"') {
				r->err = "expected a key";
				return -1;
			}
			r->p++;
			v->keys[v->n] = parse_string(r);
			skip_ws(r);
			if (!v->keys[v->n] || r->p >= r->end || *r->p != ':') {
				free(v->keys[v->n]);
				r->err = r->err ? r->err : "expected ':'";
				return -1;
			}
			r->p++;
		}
		memset(&v->items[v->n], 0, sizeof(v->items[v->n]));
		if (parse_value(r, &v->items[v->n++], depth + 1))
			return -1;
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			return 0;
		}
		r->err = "expected ',' or the end";
		return -1;
	}
}

static int parse_value(struct rd *r, struct rj *v, int depth)
{
	skip_ws(r);
	if (depth > RJ_DEPTH || r->p >= r->end) {
		r->err = depth > RJ_DEPTH ? "nested too deep" : "unexpected end";
		return -1;
	}
	char c = *r->p;
	if (c == '{' || c == '[') {
		r->p++;
		v->type = c == '{' ? RJ_OBJ : RJ_ARR;
		return parse_items(r, v, c == '{' ? '}' : ']', depth);
	}
	if (c == '"') {
		r->p++;
		v->type = RJ_STR;
		v->str = parse_string(r);
		return v->str ? 0 : -1;
	}
	static const struct { const char *word; enum rj_type type; double num; } words[] = {
		{ "true", RJ_BOOL, 1 }, { "false", RJ_BOOL, 0 }, { "null", RJ_NULL, 0 },
	};
	for (size_t i = 0; i < 3; i++) {
		size_t l = strlen(words[i].word);
		if ((size_t)(r->end - r->p) >= l && !strncmp(r->p, words[i].word, l)) {
			r->p += l;
			v->type = words[i].type;
			v->num = words[i].num;
			return 0;
		}
	}
	char buf[64];
	size_t n = 0;
	while (r->p + n < r->end && n < sizeof(buf) - 1 && strchr("+-0123456789.eE", r->p[n]))
		n++;
	memcpy(buf, r->p, n);
	buf[n] = 0;
	char *end;
	v->num = strtod(buf, &end);
	if (!n || *end) {
		r->err = "bad value";
		return -1;
	}
	r->p += n;
	v->type = RJ_NUM;
	return 0;
}

static void free_inside(struct rj *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free_inside(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

struct rj *rj_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct rd r = { text, text + len, NULL };
	struct rj *v = calloc(1, sizeof(*v));

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (parse_value(&r, v, 0) == 0) {
		skip_ws(&r);
		if (r.p == r.end)
			return v;
		r.err = "text after the value";
	}
	snprintf(err, errlen, "%s at byte %zu", r.err ? r.err : "bad JSON", (size_t)(r.p - text));
	rj_free(v);
	return NULL;
}

const struct rj *rj_get(const struct rj *obj, const char *key)
{
	for (size_t i = 0; obj && obj->type == RJ_OBJ && i < obj->n; i++)
		if (obj->keys[i] && !strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

void rj_free(struct rj *v)
{
	if (!v)
		return;
	free_inside(v);
	free(v);
}
