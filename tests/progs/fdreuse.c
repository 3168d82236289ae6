/* fdreuse.c — one descriptor number reused by every way of making one, for
 * the I/O tracer's names (test_io_names.sh).  Each file gets a byte count of
 * its own; the program checks that the number really was reused (exit 3 if
 * not).  Prints the names it cannot know in advance (mkstemp's file, the
 * pipe's and sockets' inodes are left to the test).  usage: fdreuse DIR */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

static char buf[4096];
static char dir[2048];

static void put(int fd, int n)
{
	while (n > 0) {
		int k = n > (int)sizeof(buf) ? (int)sizeof(buf) : n;
		if (write(fd, buf, (size_t)k) != k)
			exit(2);
		n -= k;
	}
}

static int create(const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
}

static void same(int a, int b)
{
	if (a != b) {
		fprintf(stderr, "fdreuse: descriptor %d, expected %d\n", a, b);
		exit(3);
	}
}

int main(int argc, char **argv)
{
	snprintf(dir, sizeof(dir), "%s", argc > 1 ? argv[1] : ".");
	int n = create("a.txt");           /* the number every file below gets */
	put(n, 1000);
	close(n);
	int b = create("b.txt");
	same(b, n);
	put(b, 2000);
	int c = create("c.txt");
	put(c, 3000);
	dup2(c, b);                        /* b is c.txt now */
	put(b, 4000);
	close(c);
	close(b);
	char tmpl[4096];
	snprintf(tmpl, sizeof(tmpl), "%s/mk.XXXXXX", dir);
	int m = mkstemp(tmpl);
	same(m, n);
	put(m, 5000);
	close(m);
	FILE *t = tmpfile();
	same(fileno(t), n);
	put(fileno(t), 6000);
	fclose(t);
	int e = eventfd(0, 0);             /* not traced: named when closed */
	same(e, n);
	close(e);
	int p[2];
	if (pipe(p))
		return 2;
	same(p[0], n);
	put(p[1], 700);
	if (read(p[0], buf, 700) != 700)
		return 2;
	close(p[0]);
	close(p[1]);
	int s[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, s))
		return 2;
	same(s[0], n);
	put(s[0], 800);
	close(s[0]);
	close(s[1]);
	int d = create("d.txt");
	same(d, n);
	put(d, 9000);
	close(d);
	printf("%s\n", tmpl);
	return 0;
}
