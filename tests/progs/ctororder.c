/* ctororder.c — libraries' constructors in the program's order, under a
 * tracer whose first call is made inside one of them.  Built three ways
 * (tests/e2e/test_trace.sh):
 *   -DCTOR_FIRST -shared: libctorfirst.so, whose constructor allocates,
 *     takes a lock and writes (a tracer's first call each, under -H, -s
 *     and -i), printing "first begins" and "first ends" around them;
 *   -DCTOR_LATER -shared: libctorlater.so, initialised after it, whose
 *     constructor prints "later"; it also defines eventfd_read (the
 *     program's own, answering 4242), which the I/O tracer must pass on to,
 *     as the program bound it; linked with a SysV hash table only, the
 *     older kind a loader still reads;
 *   neither: the program, linked with -lctorlater -lctorfirst (that order
 *     initialises first before later), printing eventfd_read's answer and
 *     "main".
 * A bare run prints "first begins", "first ends", "later",
 * "eventfd_read 4242", "main"; under a tracer the same. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

static void say(const char *s)
{
	if (write(1, s, strlen(s)) < 0)
		exit(3);
}

#if defined(CTOR_FIRST)
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((constructor)) static void first_init(void)
{
	say("first begins\n");
	void *volatile block = malloc(64);   /* volatile: not folded away */
	free(block);
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	say("first ends\n");
}

void ctor_first(void);
void ctor_first(void)
{
}
#elif defined(CTOR_LATER)
__attribute__((constructor)) static void later_init(void)
{
	say("later\n");
}

int eventfd_read(int fd, eventfd_t *value)
{
	(void)fd;
	*value = 0;
	return 4242;
}

void ctor_later(void);
void ctor_later(void)
{
}
#else
void ctor_first(void);
void ctor_later(void);

int main(void)
{
	eventfd_t v;
	char line[64];

	ctor_first();
	ctor_later();
	snprintf(line, sizeof(line), "eventfd_read %d\n", eventfd_read(-1, &v));
	say(line);
	say("main\n");
	return 0;
}
#endif
