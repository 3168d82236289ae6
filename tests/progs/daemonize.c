/* daemonize.c — becomes a daemon (daemon(3): fork, the parent exits at
 * once), then spins for the CPU time given and creates the file given when
 * it is done.  `tally record` returns when the parent exits; the daemon goes
 * on writing its sub-experiment.  usage: daemonize SECONDS DONE-FILE */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static __attribute__((noinline, noipa)) void daemon_work(double seconds)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			sink = sink * 6364136223846793005ul + 1;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

int main(int argc, char **argv)
{
	if (argc < 3 || daemon(1, 0) != 0)
		return 1;
	daemon_work(atof(argv[1]));
	int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	return fd < 0;
}
