/* control.c — phases for the control of a launched run (test_control.sh):
 *   control wall SECONDS    burn the CPU in wall_burn for SECONDS of wall
 *                           time (for --delay and --duration), then write
 *                           "done" on stdout: the program ran to its end
 *   control toggle SIG [own]  phase_a, raise(SIG), phase_b, raise(SIG),
 *                           phase_c, 0.2 s of CPU each; with "own", the
 *                           program sets a handler of its own for SIG
 *                           first, and prints how often it ran
 *   control fifo PATH       phase_a, "disable" written to the FIFO PATH,
 *                           phase_b, "enable", phase_c; after each
 *                           command it waits until tally has applied it
 *                           (the control page in $TALLY_EXP says so)
 *   control cmd             as fifo, through `$TALLY control $TALLY_EXP
 *                           off|on` instead
 * usage: control wall|toggle|fifo|cmd ARGS */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noinline, noipa))

static volatile unsigned long sink;
static volatile sig_atomic_t own_ran;

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static NOIPA void burn(clockid_t c, double seconds)
{
	double end = now(c) + seconds;

	while (now(c) < end)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * 7;
}

static NOIPA void wall_burn(double s) { burn(CLOCK_MONOTONIC, s); sink++; }
static NOIPA void phase_a(void) { burn(CLOCK_THREAD_CPUTIME_ID, 0.2); sink++; }
static NOIPA void phase_b(void) { burn(CLOCK_THREAD_CPUTIME_ID, 0.2); sink++; }
static NOIPA void phase_c(void) { burn(CLOCK_THREAD_CPUTIME_ID, 0.2); sink++; }

static void on_own(int sig)
{
	(void)sig;
	own_ran++;
}

/* Wait (sleeping) until the control page says `off`: word 2 of
 * $TALLY_EXP/control.dat (format/exp_launch.h). */
static void wait_page(int off)
{
	char path[4200];
	const char *dir = getenv("TALLY_EXP");

	snprintf(path, sizeof(path), "%s/control.dat", dir ? dir : ".");
	int fd = open(path, O_RDONLY);
	const volatile uint32_t *w = fd >= 0 ? mmap(NULL, 24, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (w == MAP_FAILED) {
		perror(path);
		exit(3);
	}
	for (int i = 0; i < 3000 && (int)w[2] != off; i++)
		usleep(10000);
	if ((int)w[2] != off) {
		fprintf(stderr, "control: %s never said %d\n", path, off);
		exit(4);
	}
	close(fd);
}

static void say(const char *how, const char *arg, const char *word)
{
	if (!strcmp(how, "fifo")) {
		int fd = open(arg, O_WRONLY);
		if (fd < 0 || write(fd, word, strlen(word)) != (ssize_t)strlen(word) ||
		    write(fd, "\n", 1) != 1) {
			perror(arg);
			exit(3);
		}
		close(fd);
	} else {
		char cmd[8400];
		const char *dir = getenv("TALLY_EXP");   /* ours: the shell's is its own */
		snprintf(cmd, sizeof(cmd), "\"$TALLY\" control '%s' %s", dir ? dir : ".",
			 !strcmp(word, "disable") ? "off" : "on");
		if (system(cmd) != 0)
			exit(3);
	}
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "wall")) {
		wall_burn(atof(argv[2]));
		printf("done\n");
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "toggle")) {
		int sig = atoi(argv[2]);
		if (argc > 3 && !strcmp(argv[3], "own"))
			signal(sig, on_own);
		phase_a();
		raise(sig);
		phase_b();
		raise(sig);
		phase_c();
		printf("own handler ran %d times\n", (int)own_ran);
		return 0;
	}
	if (argc > 1 && (!strcmp(argv[1], "fifo") || !strcmp(argv[1], "cmd"))) {
		const char *path = argc > 2 ? argv[2] : "";
		phase_a();
		say(argv[1], path, "disable");
		wait_page(1);
		phase_b();
		say(argv[1], path, "enable");
		wait_page(0);
		phase_c();
		return 0;
	}
	fprintf(stderr, "usage: control wall|toggle|fifo|cmd ARGS\n");
	return 2;
}
