/* heaplive.c — N blocks live at once (default 150,000), then freed: the
 * heap tracer's live-block table grows to its largest records (2^19 slots,
 * 12 MiB), whose inner blocks are full of addresses and sizes.
 * usage: heaplive [N] */
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 150000;
	void **v = malloc((size_t)n * sizeof(*v));

	if (!v)
		return 1;
	for (long i = 0; i < n; i++)
		v[i] = malloc(16 + (size_t)(i % 7) * 8);
	for (long i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return 0;
}
