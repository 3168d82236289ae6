/* heapthreads.c — many short threads that allocate (test_heapscale.sh): N
 * threads, one after another, each allocating one 100-byte block in
 * thread_site() and freeing it.  Prints "threads N".
 * usage: heapthreads N */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void *thread_site(void *arg)
{
	char *p = malloc(100);
	__asm__ volatile("" : : "r"(p) : "memory");   /* not optimised away */
	free(p);
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;

	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, thread_site, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	printf("threads %d\n", n);
	return 0;
}
