/* demo.c — the program `make demo` profiles: a small word-frequency counter
 * whose time splits between hashing, sorting (qsort calls back into us from
 * libc) and a deliberately slow checksum.  Built with -O2 -g, no frame
 * pointers, like most release builds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORDS 400000
#define BUCKETS 65536

struct word { char text[12]; unsigned count; };

static struct word table[BUCKETS];

__attribute__((noinline)) static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

__attribute__((noinline)) static void count_word(const char *w)
{
	unsigned i = hash(w) % BUCKETS;
	while (table[i].count && strcmp(table[i].text, w))
		i = (i + 1) % BUCKETS;
	strcpy(table[i].text, w);
	table[i].count++;
}

__attribute__((noinline)) static int by_count(const void *a, const void *b)
{
	const struct word *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->text, y->text);
}

__attribute__((noinline)) static unsigned long checksum(unsigned rounds)
{
	volatile unsigned long sum = 0;
	for (unsigned r = 0; r < rounds; r++)
		for (int i = 0; i < BUCKETS; i++)
			sum += table[i].count * (unsigned long)(i + r);
	return sum;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 3;
	char w[12];
	unsigned long seed = 12345;

	for (unsigned pass = 0; pass < rounds; pass++)
		for (int i = 0; i < WORDS; i++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			snprintf(w, sizeof(w), "w%lu", (seed >> 33) % 20000);
			count_word(w);
		}
	for (unsigned pass = 0; pass < 8 * rounds; pass++)
		qsort(table, BUCKETS, sizeof(table[0]), by_count);
	printf("most frequent: %s (%u), checksum %lu\n", table[0].text, table[0].count,
	       checksum(200 * rounds));
	return 0;
}
