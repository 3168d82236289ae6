/* status.c — ends as asked: `status N` exits with N, `status -S` raises
 * signal S, `status echo` copies stdin to stdout.  For `tally record`'s
 * pass-through of exit status, signals and standard streams. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "echo")) {
		int c;
		while ((c = getchar()) != EOF)
			putchar(c);
		fprintf(stderr, "to stderr\n");
		return 0;
	}
	int n = argc > 1 ? atoi(argv[1]) : 0;
	if (n < 0) {
		signal(-n, SIG_DFL);
		raise(-n);
	}
	return n;
}
