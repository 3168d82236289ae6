/* ioy.c — I/O with known byte counts, for the I/O tracer: put() writes
 * 100 x 1000 bytes with write() to out.bin, get() reads them back with
 * 50 x 2000-byte read()s; stdio_put() fwrite()s 64 x 512 bytes to
 * stdio.bin; vec() writes 3 x 100 bytes with one writev(); dup'd
 * descriptors keep their file's name.  Files go in the directory given
 * (default .).  usage: ioy [dir] */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define NOIPA __attribute__((noinline, noipa))

static char buf[2000];
static char path[4096], spath[4096];

NOIPA void put(void)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	for (int i = 0; i < 100; i++)
		if (write(fd, buf, 1000) != 1000)
			return;
	int fd2 = dup(fd);
	struct iovec v[3] = { { buf, 100 }, { buf, 100 }, { buf, 100 } };
	if (writev(fd2, v, 3) != 300)
		return;
	close(fd2);
	close(fd);
}

NOIPA void get(void)
{
	int fd = open(path, O_RDONLY);
	for (int i = 0; i < 50; i++)
		if (read(fd, buf, 2000) != 2000)
			return;
	close(fd);
}

NOIPA void stdio_put(void)
{
	FILE *f = fopen(spath, "w");
	for (int i = 0; i < 64; i++)
		fwrite(buf, 512, 1, f);
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	snprintf(path, sizeof(path), "%s/out.bin", dir);
	snprintf(spath, sizeof(spath), "%s/stdio.bin", dir);
	memset(buf, 'x', sizeof(buf));
	put();
	get();
	stdio_put();
	return 0;
}
