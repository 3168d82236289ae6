/* fdhostile.c — a program that closes or replaces every descriptor above 2
 * (the way a daemon or a careful server does), then opens 50 files of its
 * own, writes them while it works, and checks that each holds exactly what
 * it wrote.  Exits 0 if every file is exact, 1 if not, 2 on an error.
 * Modes: close (close 3..1023 one by one), range (close_range), closefrom,
 * dup2 (dup2 /dev/null onto 3..1023, then close them), raw (the close_range
 * system call itself, which no interposer sees), check (each of 3..1023 by
 * fcntl(F_GETFD), then close what answers).  usage: fdhostile MODE DIR */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NFILES 50
#define LINES 200

static volatile unsigned long sink;

static __attribute__((noinline, noipa)) void work(int n)
{
	for (int i = 0; i < n * 100000; i++)
		sink = sink * 6364136223846793005ul + 1;
}

static void close_all(const char *mode)
{
	if (!strcmp(mode, "close")) {
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	} else if (!strcmp(mode, "range")) {
		close_range(3, ~0u, 0);
	} else if (!strcmp(mode, "closefrom")) {
		closefrom(3);
	} else if (!strcmp(mode, "dup2")) {
		int null = open("/dev/null", O_WRONLY);
		for (int fd = 3; fd < 1024; fd++)
			if (fd != null)
				dup2(null, fd);
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	} else if (!strcmp(mode, "raw")) {
		syscall(SYS_close_range, 3, ~0u, 0);
	} else if (!strcmp(mode, "check")) {
		for (int fd = 3; fd < 1024; fd++)
			if (fcntl(fd, F_GETFD) != -1)
				close(fd);
	} else {
		exit(2);
	}
}

int main(int argc, char **argv)
{
	char path[4096], line[64], want[64];
	int fds[NFILES];

	if (argc < 3)
		return 2;
	close_all(argv[1]);
	for (int i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/f%02d.txt", argv[2], i);
		fds[i] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fds[i] < 0)
			return 2;
	}
	/* Writing while the collector samples (and claims blocks). */
	for (int l = 0; l < LINES; l++) {
		work(1);
		for (int i = 0; i < NFILES; i++) {
			int n = snprintf(line, sizeof(line), "file %02d line %03d\n", i, l);
			if (write(fds[i], line, (size_t)n) != n)
				return 2;
		}
	}
	int bad = 0;
	for (int i = 0; i < NFILES; i++) {
		if (lseek(fds[i], 0, SEEK_SET) != 0)
			return 2;
		FILE *f = fdopen(fds[i], "r");
		int l = 0;
		while (f && fgets(line, sizeof(line), f)) {
			snprintf(want, sizeof(want), "file %02d line %03d\n", i, l++);
			bad |= strcmp(line, want) != 0;
		}
		bad |= l != LINES;
		if (f)
			fclose(f);
	}
	if (bad)
		fprintf(stderr, "fdhostile: a file does not hold what was written\n");
	return bad;
}
