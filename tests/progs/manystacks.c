/* manystacks.c — malloc from 256 stacks of distinct call site and depth
 * (16 call sites in leaf() x 16 depths of down()), taken in turn ROUNDS
 * times: more stacks than a memo of 128 holds, fewer than 512
 * (test_unwind.sh, unwind_memo_keeps_256_stacks).  Built -O0: each call
 * stays a call.  usage: manystacks ROUNDS */
#include <stdlib.h>

#define SITE(n) \
	case n: \
		return malloc(16 + n);

static void *leaf(unsigned site)
{
	switch (site) {
		SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7)
		SITE(8) SITE(9) SITE(10) SITE(11) SITE(12) SITE(13) SITE(14)
	default:
		return malloc(64);
	}
}

static void *down(int depth, unsigned site)
{
	if (depth == 0)
		return leaf(site);
	void *p = down(depth - 1, site);
	return p;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 50;

	for (int r = 0; r < rounds; r++)
		for (unsigned k = 0; k < 256; k++)
			free(down((int)(k >> 4), k & 15));
	return 0;
}
