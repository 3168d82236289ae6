/* stdioy.c — every kind of stdio and descriptor I/O the tracer must see,
 * each in its own function with a byte count known by construction.  Built
 * -O2 (getc_unlocked and putc_unlocked are then inline: only __uflow and
 * __overflow are calls) and -D_FORTIFY_SOURCE=2 (printf is __printf_chk).
 *
 * Writes w.txt: 10000 (fwrite_unlocked) + 500 (fputs_unlocked) + 10000
 * (inline putc_unlocked, then fflush) + 2000 (fputc, one call each) + 60
 * (fprintf) = 22560 bytes.  Reads r.txt (200 lines of 100 bytes) four ways,
 * 5000 bytes each: fread_unlocked, inline getc_unlocked (4999, then one
 * fgetc), fgets, getline.  Copies r.txt whole with sendfile (t1.txt),
 * copy_file_range (t2.txt) and splice through a pipe (t3.txt); 2 x 1000
 * bytes with pwritev and preadv (v.txt); 1000 bytes each way over a socket
 * pair; 6 bytes with dprintf; 3000 x fputc from a thread that then ends
 * (th.txt).  Files go in the directory given (default .).
 * usage: stdioy [dir] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define NOIPA __attribute__((noinline, noipa))

static char buf[20000];
static volatile int after;     /* a store after the last call: no tail call */
static char dir[4000];

static const char *in(const char *name)
{
	static char path[2][4096];
	static int k;
	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/%s", dir, name);
	return path[k];
}

NOIPA void w_fwrite_unlocked(FILE *f)
{
	for (int i = 0; i < 100; i++)
		fwrite_unlocked(buf, 1, 100, f);
}

NOIPA void w_fputs_unlocked(FILE *f)
{
	for (int i = 0; i < 50; i++)
		fputs_unlocked("0123456789", f);
}

NOIPA void w_putc_inline(FILE *f)
{
	for (int i = 0; i < 10000; i++)
		putc_unlocked('x', f);
	fflush(f);
	after++;
}

NOIPA void w_fputc(FILE *f)
{
	for (int i = 0; i < 2000; i++)
		fputc('y', f);
}

NOIPA void w_fprintf(FILE *f)
{
	for (int i = 0; i < 10; i++)
		fprintf(f, "%05d\n", i);
}

NOIPA void r_fread_unlocked(FILE *f)
{
	for (int i = 0; i < 50; i++)
		if (fread_unlocked(buf, 1, 100, f) != 100)
			exit(2);
}

NOIPA void r_getc_inline(FILE *f)
{
	unsigned long sum = 0;
	for (int i = 0; i < 4999; i++)
		sum += (unsigned)getc_unlocked(f);
	sum += (unsigned)fgetc(f);
	if (sum == 0)
		exit(2);
}

NOIPA void r_fgets(FILE *f)
{
	char line[200];
	for (int i = 0; i < 50; i++)
		if (!fgets(line, sizeof(line), f))
			exit(2);
}

NOIPA void r_getline(FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	for (int i = 0; i < 50; i++)
		if (getline(&line, &cap, f) != 100)
			exit(2);
	if (getline(&line, &cap, f) != -1)      /* the end: nothing more */
		exit(2);
	free(line);
}

NOIPA void t_sendfile(void)
{
	int from = open(in("r.txt"), O_RDONLY), to = open(in("t1.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (sendfile(to, from, NULL, 20000) != 20000)
		exit(3);
	close(from);
	close(to);
}

NOIPA void t_copy_file_range(void)
{
	int from = open(in("r.txt"), O_RDONLY), to = open(in("t2.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (copy_file_range(from, NULL, to, NULL, 20000, 0) != 20000)
		exit(3);
	close(from);
	close(to);
}

NOIPA void t_splice(void)
{
	int from = open(in("r.txt"), O_RDONLY), to = open(in("t3.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int p[2];
	if (pipe(p) != 0)
		exit(3);
	for (int done = 0; done < 20000;) {
		ssize_t n = splice(from, NULL, p[1], NULL, 4000, 0);
		if (n <= 0 || splice(p[0], NULL, to, NULL, (size_t)n, 0) != n)
			exit(3);
		done += (int)n;
	}
	close(p[0]);
	close(p[1]);
	close(from);
	close(to);
}

NOIPA void v_vectors(void)
{
	int fd = open(in("v.txt"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct iovec v[2] = { { buf, 600 }, { buf + 600, 400 } };
	if (pwritev(fd, v, 2, 0) != 1000 || pwritev(fd, v, 2, 1000) != 1000 ||
	    preadv(fd, v, 2, 0) != 1000 || preadv(fd, v, 2, 1000) != 1000)
		exit(4);
	close(fd);
}

NOIPA void s_socket(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || send(sv[0], buf, 1000, 0) != 1000)
		exit(5);
	for (int got = 0; got < 1000;) {
		ssize_t n = recv(sv[1], buf, 1000 - (size_t)got, 0);
		if (n <= 0)
			exit(5);
		got += (int)n;
	}
	close(sv[0]);
	close(sv[1]);
}

NOIPA void d_dprintf(int fd)
{
	dprintf(fd, "%d\n", 12345);
	after++;
}

NOIPA void *th_fputc(void *f)
{
	for (int i = 0; i < 3000; i++)
		fputc('z', f);
	return NULL;
}

int main(int argc, char **argv)
{
	snprintf(dir, sizeof(dir), "%s", argc > 1 ? argv[1] : ".");
	memset(buf, 'a', sizeof(buf));

	FILE *r = fopen(in("r.txt"), "w");
	for (int i = 0; i < 200; i++) {
		buf[99] = '\n';
		fwrite(buf, 1, 100, r);
	}
	fclose(r);
	buf[99] = 'a';

	FILE *w = fopen(in("w.txt"), "w");
	w_fwrite_unlocked(w);
	w_fputs_unlocked(w);
	w_putc_inline(w);
	w_fputc(w);
	w_fprintf(w);
	fclose(w);

	r = fopen(in("r.txt"), "r");
	r_fread_unlocked(r);
	r_getc_inline(r);
	r_fgets(r);
	r_getline(r);
	fclose(r);

	t_sendfile();
	t_copy_file_range();
	t_splice();
	v_vectors();
	s_socket();
	int fd = open(in("d.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	d_dprintf(fd);
	close(fd);
	FILE *th = fopen(in("th.txt"), "w");
	pthread_t tid;
	if (pthread_create(&tid, NULL, th_fputc, th) != 0 || pthread_join(tid, NULL) != 0)
		exit(6);
	fclose(th);
	printf("done\n");
	return 0;
}
