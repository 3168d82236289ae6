/* blocked_whole.c — a target for `tally record -p --states`
 * (tests/e2e/test_attach_states.sh) whose threads are blocked before the
 * attach and stay blocked past its end:
 *   reader   reads a pipe that main writes only at the end (wait.io);
 *   sleeper  sleeps in one nanosleep of SECONDS (wait.sleep);
 *   main     alternates 2 ms of CPU and 2 ms of sleep (switches all the
 *            time, so that its intervals reach the window's end).
 * Each blocked thread logs, at the end, "NAME TID START_NS END_NS" (its
 * block, CLOCK_MONOTONIC); then "main TID".  Prints "ready" on stderr once
 * both are blocked (their state S in /proc).
 * usage: blocked_whole LOG [SECONDS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noinline, noipa))

static int fds[2];
static double seconds = 3;
static volatile unsigned long sink;

struct block {
	pid_t tid;
	long long start_ns, end_ns;
};
static struct block reader_b, sleeper_b;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

NOIPA static void block_in_read(void)
{
	char c;

	reader_b.start_ns = now_ns();
	if (read(fds[0], &c, 1) != 1)
		perror("read");
	reader_b.end_ns = now_ns();
}

static void *reader(void *unused)
{
	(void)unused;
	reader_b.tid = gettid();
	block_in_read();
	return NULL;
}

NOIPA static void sleep_through(void)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };

	sleeper_b.start_ns = now_ns();
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0)
		;
	sleeper_b.end_ns = now_ns();
}

static void *sleeper(void *unused)
{
	(void)unused;
	sleeper_b.tid = gettid();
	sleep_through();
	return NULL;
}

NOIPA static void burn(long long ns)
{
	long long end = now_ns() + ns;

	while (now_ns() < end)
		sink++;
}

/* Is thread tid in state S (blocked)? */
static int asleep(pid_t tid)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

int main(int argc, char **argv)
{
	pthread_t r, s;

	if (argc < 2) {
		fprintf(stderr, "usage: blocked_whole LOG [SECONDS]\n");
		return 2;
	}
	if (argc > 2)
		seconds = atof(argv[2]);
	if (pipe(fds) != 0)
		return 1;
	long long end = now_ns() + (long long)(seconds * 1e9);
	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&s, NULL, sleeper, NULL);
	while (!reader_b.tid || !sleeper_b.tid || !asleep(reader_b.tid) || !asleep(sleeper_b.tid))
		usleep(1000);
	fprintf(stderr, "ready\n");
	while (now_ns() < end) {
		struct timespec ts = { 0, 2000000 };
		burn(2000000);
		nanosleep(&ts, NULL);
	}
	if (write(fds[1], "x", 1) != 1)
		return 1;
	pthread_join(r, NULL);
	pthread_join(s, NULL);
	FILE *log = fopen(argv[1], "w");
	if (!log)
		return 1;
	fprintf(log, "reader %d %lld %lld\n", (int)reader_b.tid, reader_b.start_ns, reader_b.end_ns);
	fprintf(log, "sleeper %d %lld %lld\n", (int)sleeper_b.tid, sleeper_b.start_ns, sleeper_b.end_ns);
	fprintf(log, "main %d\n", (int)gettid());
	return fclose(log) != 0;
}
