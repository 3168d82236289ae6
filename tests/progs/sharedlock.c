/* sharedlock.c — waits whose end comes from another process or another
 * thread's fork, for the critical path across processes
 * (tests/e2e/test_critical_xproc.sh).
 *
 *   sharedlock mutex UNIT_MS   main forks a child that takes a
 *                              PTHREAD_PROCESS_SHARED mutex in shared
 *                              anonymous memory and holds it through
 *                              slow_holder_work() (UNIT_MS of its CPU);
 *                              main waits for the mutex, then for the
 *                              child's end without reaping it (WNOWAIT)
 *   sharedlock futex UNIT_MS   the same through a futex word on the shared
 *                              page: the child works, sets the word and
 *                              wakes it (FUTEX_WAKE, not private); main
 *                              waits on it (FUTEX_WAIT)
 *   sharedlock sem UNIT_MS     the same through a process-shared
 *                              semaphore: the child works, then posts it;
 *                              main waits on it (sem_wait)
 *   sharedlock cond UNIT_MS    a process-shared condition variable: the
 *                              child works, then signals it under the
 *                              shared mutex; main waits on it
 *   sharedlock rwlock UNIT_MS  a process-shared rwlock: the child holds it
 *                              for writing through slow_holder_work();
 *                              main waits to read it
 *   sharedlock barrier UNIT_MS a process-shared barrier of 2: the child
 *                              works, then arrives (it completes the
 *                              round); main arrives at once and waits
 *   sharedlock condmutex UNIT_MS  the child holds the shared mutex
 *                              through slow_holder_work(), then lets it go
 *                              inside pthread_cond_timedwait (no unlock
 *                              call); main waits for the mutex
 *   sharedlock mapsreads ROUNDS  one thread waits 1 ms (timed FUTEX_WAIT,
 *                              not private) on a word in each of 6 shared
 *                              mappings in turn, ROUNDS times: more
 *                              mappings than a thread keeps, so a key
 *                              lookup that reads /proc/self/maps on each
 *                              miss reads it on every wait; halfway it
 *                              maps a 7th, waited on from then on (a
 *                              mapping new since the last read); prints
 *                              "waits N" and "word I ADDRESS" for each
 *   sharedlock system UNIT_MS  main calls system("exec SELF work UNIT_MS"),
 *                              whose child spins in slow_child_work()
 *   sharedlock work UNIT_MS    slow_child_work() once; prints "work NS"
 *   sharedlock forker UNIT_MS  main starts a worker thread that works in
 *                              work_before_fork() (UNIT_MS), then forks a
 *                              child that works in slow_child_work()
 *                              (UNIT_MS) and waits for it; main joins it
 *
 * Each prints its own measures on stdout, "NAME NS" pairs: wall (main's
 * start to its end), held or work (the slow function's wall), span (the
 * child's wall from before the fork to its release, or system()'s call),
 * before (work_before_fork's wall). */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOIPA __attribute__((noinline, noipa))
#include "spin_ms.h"

static double unit_ms = 300;

NOIPA void slow_holder_work(void) { spin(unit_ms); sink++; }
NOIPA void slow_child_work(void) { spin(unit_ms); sink++; }
NOIPA void work_before_fork(void) { spin(unit_ms); sink++; }

enum way { MUTEX, FUTEX, SEM, COND, RWLOCK, BARRIER, CONDMUTEX };
static const char *const way_names[] = { "mutex", "futex", "sem", "cond", "rwlock", "barrier", "condmutex" };

/* What the two processes share. */
struct shared {
	pthread_mutex_t m;
	pthread_cond_t c;
	pthread_rwlock_t rw;
	pthread_barrier_t b;
	sem_t sem;
	int done;                  /* cond: the child is done (under m) */
	atomic_int held;           /* the child holds m */
	uint32_t word;             /* the futex word: 1 when the child is done */
	uint64_t held_ns, span_ns;
};

static struct shared *share(void)
{
	struct shared *s = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_mutexattr_t a;
	pthread_condattr_t ca;
	pthread_rwlockattr_t ra;
	pthread_barrierattr_t ba;

	if (s == MAP_FAILED)
		exit(1);
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&s->m, &a);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->c, &ca);
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setpshared(&ra, PTHREAD_PROCESS_SHARED);
	pthread_rwlock_init(&s->rw, &ra);
	pthread_barrierattr_init(&ba);
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	if (pthread_barrier_init(&s->b, &ba, 2) || sem_init(&s->sem, 1, 0))
		exit(1);
	return s;
}

/* The child's part: slow_holder_work() holding the object, or before
 * the release that lets main go. */
static void holder(struct shared *s, uint64_t from, enum way w)
{
	if (w == MUTEX || w == CONDMUTEX)
		pthread_mutex_lock(&s->m);
	if (w == RWLOCK)
		pthread_rwlock_wrlock(&s->rw);
	atomic_store(&s->held, 1);
	uint64_t t = clock_ns(CLOCK_MONOTONIC);
	slow_holder_work();
	s->held_ns = clock_ns(CLOCK_MONOTONIC) - t;
	s->span_ns = clock_ns(CLOCK_MONOTONIC) - from;
	switch (w) {
	case FUTEX:
		__atomic_store_n(&s->word, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &s->word, FUTEX_WAKE, 1, NULL, NULL, 0);
		break;
	case SEM:
		sem_post(&s->sem);
		break;
	case COND:
		pthread_mutex_lock(&s->m);
		s->done = 1;
		pthread_cond_signal(&s->c);
		pthread_mutex_unlock(&s->m);
		break;
	case RWLOCK:
		pthread_rwlock_unlock(&s->rw);
		break;
	case BARRIER:
		pthread_barrier_wait(&s->b);
		break;
	case CONDMUTEX: {
		/* Let the mutex go inside the wait, for 50 ms: no unlock call. */
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += 50000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&s->c, &s->m, &until);
		pthread_mutex_unlock(&s->m);
		break;
	}
	default:
		pthread_mutex_unlock(&s->m);
	}
	_exit(0);
}

static int shared_wait(enum way w, uint64_t t0)
{
	struct shared *s = share();
	uint64_t from = clock_ns(CLOCK_MONOTONIC);
	pid_t c = fork();

	if (c < 0)
		return 1;
	if (!c)
		holder(s, from, w);
	switch (w) {
	case FUTEX:
		while (!__atomic_load_n(&s->word, __ATOMIC_ACQUIRE))
			syscall(SYS_futex, &s->word, FUTEX_WAIT, 0, NULL, NULL, 0);
		break;
	case SEM:
		while (sem_wait(&s->sem))
			;
		break;
	case COND:
		pthread_mutex_lock(&s->m);
		while (!s->done)
			pthread_cond_wait(&s->c, &s->m);
		pthread_mutex_unlock(&s->m);
		break;
	case RWLOCK:
		while (!atomic_load(&s->held))
			sched_yield();
		pthread_rwlock_rdlock(&s->rw);
		pthread_rwlock_unlock(&s->rw);
		break;
	case BARRIER:
		pthread_barrier_wait(&s->b);
		break;
	default:
		while (!atomic_load(&s->held))
			sched_yield();
		pthread_mutex_lock(&s->m);
		pthread_mutex_unlock(&s->m);
	}
	/* The child's end, so that its files are whole when the record ends,
	 * but not reaped: a wait that reaps goes to the child's end, and the
	 * path would reach slow_holder_work that way, not through the object. */
	siginfo_t info;
	if (waitid(P_PID, (id_t)c, &info, WEXITED | WNOWAIT))
		return 1;
	printf("wall %llu held %llu span %llu\n", (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - t0),
	       (unsigned long long)s->held_ns, (unsigned long long)s->span_ns);
	return 0;
}

/* Timed waits on words in 6 shared mappings, in turn. */
static int maps_reads(int rounds)
{
	uint32_t *word[7];
	struct timespec ms = { 0, 1000000 };
	int n = 6, waits = 0;

	for (int i = 0; i < 7; i++) {
		if (i == 6 && rounds > 0)
			break;   /* the 7th comes halfway */
		word[i] = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (word[i] == MAP_FAILED)
			return 1;
	}
	for (int r = 0; r < rounds; r++) {
		if (r == rounds / 2) {
			word[6] = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
			if (word[6] == MAP_FAILED)
				return 1;
			n = 7;
		}
		for (int i = 0; i < n; i++, waits++)
			syscall(SYS_futex, word[i], FUTEX_WAIT, 0, &ms, NULL, 0);
	}
	printf("waits %d\n", waits);
	for (int i = 0; i < 7 && rounds > 0; i++)
		printf("word %d %p\n", i, (void *)word[i]);
	return 0;
}

static void *forker(void *arg)
{
	uint64_t *before = arg, t = clock_ns(CLOCK_MONOTONIC);
	work_before_fork();
	*before = clock_ns(CLOCK_MONOTONIC) - t;
	pid_t c = fork();
	if (!c) {
		slow_child_work();
		_exit(0);
	}
	int st;
	if (c < 0 || waitpid(c, &st, 0) != c)
		exit(1);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: sharedlock mutex|futex|sem|cond|rwlock|barrier|condmutex|system|work|forker [UNIT_MS]\n");
		return 2;
	}
	if (argc > 2)
		unit_ms = atof(argv[2]);
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	for (size_t w = 0; w < sizeof(way_names) / sizeof(way_names[0]); w++)
		if (!strcmp(argv[1], way_names[w]))
			return shared_wait((enum way)w, t0);
	if (!strcmp(argv[1], "mapsreads"))
		return maps_reads(argc > 2 ? atoi(argv[2]) : 20);
	if (!strcmp(argv[1], "work")) {
		slow_child_work();
		printf("work %llu\n", (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - t0));
		return 0;
	}
	if (!strcmp(argv[1], "system")) {
		char self[4096], cmd[4200];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return 1;
		self[n] = 0;
		snprintf(cmd, sizeof(cmd), "exec '%s' work %g", self, unit_ms);
		fflush(stdout);
		uint64_t t = clock_ns(CLOCK_MONOTONIC);
		int rc = system(cmd);
		uint64_t span = clock_ns(CLOCK_MONOTONIC) - t;
		printf("wall %llu span %llu\n", (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - t0),
		       (unsigned long long)span);
		return rc != 0;
	}
	if (!strcmp(argv[1], "forker")) {
		pthread_t th;
		uint64_t before = 0;
		if (pthread_create(&th, NULL, forker, &before) || pthread_join(th, NULL))
			return 1;
		printf("wall %llu before %llu\n", (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - t0),
		       (unsigned long long)before);
		return 0;
	}
	return 2;
}
