/* threads4.c — four CPU-bound threads with work 1:2:3:4 in t1..t4, plus a
 * thread started from a constructor, before main, running ctor_worker for
 * 1 unit.  usage: threads4 [units] */
#include <pthread.h>
#include <stdlib.h>

#define NOIPA __attribute__((noinline, noipa))

static double units = 1.0;
static pthread_t early;

NOIPA static void work(unsigned long n)
{
	volatile unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
}

#define UNIT ((unsigned long)(units * 25e6))
NOIPA void *t1(void *a) { work(1 * UNIT); return a; }
NOIPA void *t2(void *a) { work(2 * UNIT); return a; }
NOIPA void *t3(void *a) { work(3 * UNIT); return a; }
NOIPA void *t4(void *a) { work(4 * UNIT); return a; }
NOIPA void *ctor_worker(void *a) { work(1 * UNIT); return a; }

__attribute__((constructor)) static void start_early(void)
{
	pthread_create(&early, NULL, ctor_worker, NULL);
}

int main(int argc, char **argv)
{
	pthread_t t[4];
	void *(*fn[4])(void *) = { t1, t2, t3, t4 };

	if (argc > 1)
		units = atof(argv[1]);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, fn[i], NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	pthread_join(early, NULL);
	return 0;
}
