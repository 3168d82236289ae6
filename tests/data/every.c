/* every.c — the program recorded into tests/data/every.exp (by make-every.sh):
 * one run that writes every record type tally's collector writes.  Built
 * with -pg (ARC_TABLE); two threads (THREAD_START/END) that allocate and
 * free (HEAP, HEAP_FREE), contend for a mutex (SYNC), and write a file
 * (IO, FD_NAME); main dlopen()s and dlclose()s libm (MAP, UNMAP) and spins
 * (SAMPLE, STACK_NODE).  usage: every FILE */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;
static const char *file;

__attribute__((noinline)) static void spin(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1;
	sink = x;
}

__attribute__((noinline)) static void *worker(void *arg)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_APPEND, 0644);
	for (int i = 0; i < 300; i++) {
		char *volatile p = malloc(64 + (size_t)i);
		if (p)
			p[0] = 1;
		pthread_mutex_lock(&lock);
		struct timespec t = { 0, 200000 };
		nanosleep(&t, NULL);
		pthread_mutex_unlock(&lock);
		if (fd >= 0 && write(fd, "x", 1) != 1)
			break;
		if (i % 10)
			free(p);
	}
	if (fd >= 0)
		close(fd);
	spin(20000000);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	file = argc > 1 ? argv[1] : "/dev/null";
	void *h = dlopen("libm.so.6", RTLD_NOW);
	if (h)
		dlclose(h);
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	spin(60000000);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
