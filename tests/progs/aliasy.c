/* aliasy.c — names for test_names.sh: qsort_r, which glibc also exports as
 * __qsort_r (an alias), and field(), a clone (gcc -O2 names it
 * field.constprop.0 or field.isra.0).  usage: aliasy [N] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static int cmp(const void *a, const void *b, void *arg)
{
	(void)arg;
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

struct cfg {
	const unsigned *v;
	size_t n;
	unsigned shift;
};

/* gcc -O2 specializes it for its one caller's struct (field.constprop.0
 * or field.isra.0). */
static NOINLINE unsigned field(const struct cfg *c)
{
	unsigned s = 0;
	for (size_t r = 0; r < 40; r++)
		for (size_t i = 0; i < c->n; i++)
			s += (c->v[i] >> c->shift) & 0xff;
	return s;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 400000;
	unsigned *v = malloc(n * sizeof(*v));
	unsigned seed = 1, s = 0;
	if (!v)
		return 1;
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < n; i++)
			v[i] = seed = seed * 1103515245u + 12345u;
		qsort_r(v, n, sizeof(*v), cmp, NULL);
		struct cfg c = { v, n, 8 };
		s += field(&c);
	}
	printf("%u\n", s);
	free(v);
	return 0;
}
