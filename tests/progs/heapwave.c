/* heapwave.c — the live heap rises and falls back (test_heapscale.sh): N
 * blocks from wave_site(), all freed, then KEEP blocks of 100 bytes from
 * keep_site() left unfreed.  The heap tracer's live-block tables grow while
 * the wave rises and end empty but for the kept blocks: what leaks is
 * keep_site's, exactly.  Then 1000 blocks from twin_site(), reached
 * through via_a() and via_b() in turn: the same return address at the same
 * stack depth under two different callers, which a traced stack
 * remembered by its leaf alone would confuse (500 each).  Prints "kept BYTES"
 * and "peak BYTES": the live bytes it asked for at its highest (the wave
 * and its array), which the tracer's peak must reach exactly: one thread
 * allocates.
 * usage: heapwave N KEEP */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void *wave_site(size_t size)
{
	char *p = malloc(size);
	if (p)
		p[0] = 1;
	return p;
}

__attribute__((noinline)) static void *keep_site(void)
{
	char *p = malloc(100);
	if (p)
		p[99] = 1;
	return p;
}

static volatile int sink;

__attribute__((noinline)) static void twin_site(int k)
{
	char *p = malloc(32);
	if (p)
		p[0] = (char)k;
	sink += p ? p[0] : 0;
	free(p);
}

__attribute__((noinline)) static void via_a(void)
{
	twin_site(1);
	sink += 1;
}

__attribute__((noinline)) static void via_b(void)
{
	twin_site(2);
	sink += 2;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	long keep = argc > 2 ? atol(argv[2]) : 5;
	void **wave = calloc((size_t)n, sizeof(*wave));
	static void *kept[1000];

	if (!wave || keep < 0 || keep > 1000)
		return 2;
	long peak = n * (long)sizeof(*wave);
	for (long i = 0; i < n; i++) {
		wave[i] = wave_site(24 + (size_t)(i % 100));
		peak += 24 + i % 100;
	}
	for (long i = 0; i < n; i++)
		free(wave[i]);
	free(wave);
	for (int i = 0; i < 1000; i++) {
		if (i & 1)
			via_a();
		else
			via_b();
	}
	for (long i = 0; i < keep; i++)
		kept[i] = keep_site();
	printf("kept %ld\npeak %ld\n", keep * 100, peak);
	return kept[0] || !keep ? 0 : 1;
}
