/* daemonize.c — becomes a daemon (daemon(3): fork, the parent exits at
 * once), then spins for the CPU time given and creates the file given when
 * it is done.  `tally record` returns when the parent exits; the daemon goes
 * on writing its sub-experiment.  usage: daemonize SECONDS DONE-FILE */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "burn_cpu.h"

static __attribute__((noinline, noipa)) void daemon_work(double seconds)
{
	burn_cpu(seconds);
}

int main(int argc, char **argv)
{
	if (argc < 3 || daemon(1, 0) != 0)
		return 1;
	daemon_work(atof(argv[1]));
	int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	return fd < 0;
}
