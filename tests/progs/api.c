/* api.c — uses include/tally.h: marks phases "setup", "main-work" and "work-done", runs
 * hidden() with recording paused and shown() with it on.  Exits 0 if
 * tally_collecting() says what the test expects (argv[1]: 1 or 0).
 * usage: api 1|0 */
#include <stdlib.h>

#include "tally.h"

static volatile unsigned long sink;

__attribute__((noinline, noipa)) void burn(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1;
	sink = x;
}

/* The barrier keeps the calls out of tail position (a tail call would leave
 * hidden and shown off the stack). */
__attribute__((noinline, noipa)) void hidden(void) { burn(150000000); __asm__ volatile(""); }
__attribute__((noinline, noipa)) void shown(void) { burn(150000000); __asm__ volatile(""); }

int main(int argc, char **argv)
{
	int want = argc > 1 ? atoi(argv[1]) : 1;
	tally_marker("setup");
	tally_pause();
	hidden();
	tally_resume();
	tally_marker("main-work");
	shown();
	tally_marker("work-done");   /* names with dashes: --time main-work-work-done */
	return tally_collecting() == want ? 0 : 1;
}
