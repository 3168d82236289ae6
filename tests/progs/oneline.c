/* oneline.c — two functions whose code is on one source line (as two
 * inline functions of a header can be): `tally report --lines` must label
 * that line with both, not with whichever it met first.  A short phase in
 * libc's memset first gives --objects a smaller object met first.
 * usage: oneline */
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noinline, noipa))

static volatile unsigned long sink;

/* clang-format off */
NOIPA void left(unsigned long n) { unsigned long x = sink; for (unsigned long i = 0; i < n; i++) { x = x * 6364136223846793005ul + 1; __asm__ volatile("" : "+r"(x)); } sink = x; } NOIPA void right(unsigned long n) { unsigned long x = sink; for (unsigned long i = 0; i < n; i++) { x = x * 2862933555777941757ul + 3; __asm__ volatile("" : "+r"(x)); } sink = x; }
/* clang-format on */

int main(void)
{
	size_t len = 16u << 20;
	char *buf = malloc(len);

	for (int i = 0; buf && i < 20; i++) {
		memset(buf, i, len);
		sink += (unsigned char)buf[i * 4099];
	}
	free(buf);
	left(150000000ul);
	right(150000000ul);
	return 0;
}
