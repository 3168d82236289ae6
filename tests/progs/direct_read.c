/* direct_read.c — reads a file three times with O_DIRECT, so that each
 * read waits for the disk, not the page cache: the kernel frames of a
 * thread blocked on real I/O (test_kernel.sh, kernel_blocked_disk_read).
 *
 * Prints the bytes read and the times it blocked (getrusage's voluntary
 * context switches: none when the file lives in memory, tmpfs); exits 2
 * with "no O_DIRECT: ..." when the file system refuses it.
 * usage: direct_read FILE */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define CHUNK (1 << 20)

int main(int argc, char **argv)
{
	void *buf;
	long long total = 0;
	ssize_t n;

	if (argc != 2)
		return 1;
	int fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0) {
		printf("no O_DIRECT: %s\n", strerror(errno));
		return 2;
	}
	if (posix_memalign(&buf, 4096, CHUNK) != 0)
		return 1;
	for (int pass = 0; pass < 3; pass++) {
		if (lseek(fd, 0, SEEK_SET) != 0)
			return 1;
		while ((n = read(fd, buf, CHUNK)) > 0)
			total += n;
		if (n < 0) {
			printf("no O_DIRECT: read: %s\n", strerror(errno));
			return 2;
		}
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%lld bytes, blocked %ld times\n", total, ru.ru_nvcsw);
	free(buf);
	close(fd);
	return 0;
}
