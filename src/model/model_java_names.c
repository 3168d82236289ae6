/* SPDX-License-Identifier: MIT
 *
 * model_java_names.c — Java methods named as Java programmers write them:
 * the JVM's class signature, method name and descriptor
 * ("Lpkg/Outer$Inner;", "run", "(I[Ljava/lang/String;)V") become
 * "pkg.Outer$Inner.run(int, java.lang.String[])"; the source file's path
 * is its package's directory and the SourceFile name ("pkg/Outer.java").
 * The address a hidden class (a lambda's) carries in its name, different
 * in every run, is cut: "Hot$$Lambda$14.0x0000000800c01000" is
 * "Hot$$Lambda$14".  Pure functions; any length is cut to the buffer.
 */
#include <string.h>

#include "model/model_java.h"

struct out {
	char *buf;
	size_t len, at;
};

static void put(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && o->at + 1 < o->len; i++)
		o->buf[o->at++] = s[i];
	if (o->len)
		o->buf[o->at] = 0;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* A binary class name (pkg/Outer$Inner) of n bytes, dotted, its hidden
 * class suffix cut. */
static void put_class(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i + 2 < n; i++)
		if ((s[i] == '.' || s[i] == '/' || s[i] == '+') && s[i + 1] == '0' && s[i + 2] == 'x') {
			n = i;
			break;
		}
	for (size_t i = 0; i < n; i++)
		put(o, s[i] == '/' ? "." : &s[i], 1);
}

/* One type of a descriptor at *p; advances *p.  False at a malformed end. */
static bool put_type(struct out *o, const char **p)
{
	static const char *const prim = "BbyteCcharDdoubleFfloatIintJlongSshortZbooleanVvoid";
	int dims = 0;

	while (**p == '[') {
		dims++;
		(*p)++;
	}
	if (**p == 'L') {
		const char *end = strchr(*p, ';');
		if (!end)
			return false;
		put_class(o, *p + 1, (size_t)(end - *p - 1));
		*p = end + 1;
	} else {
		const char *at = **p ? strchr(prim, **p) : NULL;
		/* Primitive codes are the upper-case letters of the table. */
		if (!at || !(*at >= 'A' && *at <= 'Z'))
			return false;
		const char *next = at + 1;
		while (*next >= 'a' && *next <= 'z')
			next++;
		put(o, at + 1, (size_t)(next - at - 1));
		(*p)++;
	}
	while (dims--)
		puts_(o, "[]");
	return true;
}

size_t model_java_name(const char *klass, const char *method, const char *sig, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	size_t n = strlen(klass);

	if (len)
		buf[0] = 0;
	if (n >= 2 && klass[0] == 'L' && klass[n - 1] == ';')
		put_class(&o, klass + 1, n - 2);
	else
		put_class(&o, klass, n);
	puts_(&o, ".");
	puts_(&o, method);
	const char *p = sig;
	if (*p != '(') {                   /* not a method descriptor: as it is */
		puts_(&o, sig);
		return o.at;
	}
	puts_(&o, "(");
	p++;
	for (bool first = true; *p && *p != ')'; first = false) {
		if (!first)
			puts_(&o, ", ");
		if (!put_type(&o, &p)) {
			puts_(&o, p);
			break;
		}
	}
	puts_(&o, ")");
	return o.at;
}

size_t model_java_source_path(const char *klass, const char *src, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	size_t n = strlen(klass);
	const char *name = klass[0] == 'L' ? klass + 1 : klass;
	const char *slash = strrchr(name, '/');

	if (len)
		buf[0] = 0;
	if (!src || !*src || n < 2)
		return 0;
	if (slash)
		put(&o, name, (size_t)(slash - name) + 1);
	puts_(&o, src);
	return o.at;
}
