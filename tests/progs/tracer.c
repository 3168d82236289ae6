/* tracer.c — keeps a process traced for SECS seconds (PTRACE_SEIZE stops
 * nothing), for the "traced already" refusal of `tally record -p`.
 * usage: tracer PID SECS; prints "ready" on stderr once it traces. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 64;
	if (ptrace(PTRACE_SEIZE, atoi(argv[1]), 0, 0) != 0) {
		perror("tracer: PTRACE_SEIZE");
		return 1;
	}
	fprintf(stderr, "ready\n");
	sleep((unsigned)atoi(argv[2]));
	return 0;
}
