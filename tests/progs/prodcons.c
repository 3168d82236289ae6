/* prodcons.c — a producer and a consumer, handing items over through a
 * condition variable ("cond"), a pipe ("pipe"), a barrier of the two
 * ("barrier"), a named FIFO ("fifo"), a connected unix stream socket
 * ("unix"), a unix socket pair ("socketpair"), a TCP connection on the
 * loopback ("tcp"), an eventfd counter ("eventfd"), a pipe that main waits
 * on in poll ("poll"), in an epoll loop ("epoll"; "nested": an epoll set
 * within the set main waits on; "rawepoll": the set made by raw system
 * calls, unseen, as one made before a tracer was loaded; "pausedepoll":
 * the set made while traced and given the pipe while recording is paused
 * by tally_pause(), then the idle pipe once resumed) or in select
 * ("select"), each beside a second,
 * idle pipe, or unconnected UDP sockets on the loopback ("udp": sendto,
 * recvfrom) or unix datagram sockets ("dgramname": sendto an abstract
 * name main's socket is bound to; "dgrampath": sendto the absolute path of
 * the file main's socket is bound to as "./dgram.sock"), or a futex word in shared memory ("futex": syscall(SYS_futex)
 * waits and wakes, as hand-rolled synchronization makes them), for the
 * critical path.  "fullpipe" and "fullsock" turn the channel round: main
 * writes each item into a full pipe (of one page, a page an item) or a
 * full unix datagram socket (a byte an item; main's socket is connected
 * to the producer's, bound to an abstract name, whose queue is full: the
 * kernel wakes a writer at each datagram read; a stream socket's writer
 * is woken only once its buffer is three quarters empty), and the producer
 * reads it after slow_produce(), making room: main's writes wait for the
 * producer's reads; "pollout" and "epollout" the same, main waiting for
 * room in poll or epoll_wait for writing (POLLOUT, EPOLLOUT) before each
 * write, which then never waits; "selectout" the same in select, the pipe
 * in its write set alone.  With poll, epoll and select main reads each
 * item's byte only after consuming it (a handler that drains its
 * descriptor last), so that only the wait can lead to the producer
 * (tests/e2e/test_critical_wake.sh, test_critical_channels.sh).  The producer thread makes ITEMS
 * items, each in slow_produce(): UNIT_MS of its CPU (with "sleep": asleep
 * for UNIT_MS in nanosleep, handing over through the condition variable;
 * with "mixed": a fifth of UNIT_MS of CPU, then asleep for UNIT_MS, and at
 * its end it reads its own schedstat, the kernel's CPU and wait for a CPU);
 * main consumes each in quick_consume(): a quarter of UNIT_MS of CPU.  So main mostly waits for the
 * producer, and the run's length is the producer's work: the critical path
 * goes from main's waits to the producer that woke them.
 *
 * The program measures its own wall time (main's start to its end) and
 * slow_produce()'s (from each call's start to its end, wall, summed) and
 * prints
 *   wall NS produce NS
 * and with "mixed" " napped NS cpu NS delay NS" after (its naps' wall, summed;
 * the producer's CPU and wait for a CPU at its end, from schedstat).
 * usage: prodcons MODE [ITEMS [UNIT_MS]]; exit 3 if the mode's channel cannot
 * be made here (no loopback, say), with the cause on stderr. */
#define _GNU_SOURCE             /* F_SETPIPE_SZ */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noinline, noipa))
#include "spin_ms.h"

enum mode { COND, PIPE, SLEEP, MIXED, BARRIER, FIFO, UNIX, SOCKETPAIR, TCP, EVENTFD, POLL, EPOLL, SELECT, UDP, FUTEX,
	    FULLPIPE, FULLSOCK, NESTED, RAWEPOLL, POLLOUT_, EPOLLOUT_, DGRAMNAME, SELECTOUT, DGRAMPATH, PAUSEDEPOLL };
static const char *const modes[] = { "cond", "pipe", "sleep", "mixed", "barrier", "fifo", "unix",
				     "socketpair", "tcp", "eventfd", "poll", "epoll", "select", "udp", "futex",
				     "fullpipe", "fullsock", "nested", "rawepoll", "pollout", "epollout", "dgramname",
				     "selectout", "dgrampath", "pausedepoll" };
static size_t chunk = 1;            /* fullpipe, fullsock, pollout, epollout: the bytes of an item */
static char page[4096];
static enum mode mode;
static int items = 12, use_sleep;
static long unit_ms = 30;
static uint64_t produce_ns;
static uint64_t napped_ns, producer_cpu_ns, producer_delay_ns;   /* mixed */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static int queued;
static pthread_barrier_t both;
static int rfd = -1, wfd = -1;      /* the channel's ends: main reads rfd */
static int idle_fds[2] = { -1, -1 }; /* poll, epoll, select: a pipe nobody writes */
static int epfd = -1;               /* epoll: rfd and idle_fds[0] */
static int outer = -1;              /* nested: an epoll set holding epfd */
static struct sockaddr_un un_to;    /* dgramname: the name main's socket is bound to */
static socklen_t un_len;
static struct sockaddr_in udp_to;   /* udp: where main's socket is bound */
static _Atomic unsigned *made;      /* futex: items made, in shared memory */
static unsigned taken;              /* futex: items main took */
static eventfd_t pending;          /* eventfd: items counted but not yet taken */


NOIPA void nap(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&t, &t))
		;
	sink++;
}

NOIPA void slow_produce(void)
{
	if (mode == MIXED) {
		spin((double)unit_ms / 5);
		uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
		nap(unit_ms);
		napped_ns += clock_ns(CLOCK_MONOTONIC) - t0;
	} else if (use_sleep) {
		nap(unit_ms);
	} else {
		spin((double)unit_ms);
	}
	sink++;
}

/* mixed: the producer's CPU and wait for a CPU so far, the kernel's
 * (schedstat's first two fields; 0 where there is none). */
static void producer_sched(void)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	unsigned long long cpu = 0, delay = 0;

	if (f && fscanf(f, "%llu %llu", &cpu, &delay) != 2)
		cpu = delay = 0;
	if (f)
		fclose(f);
	producer_cpu_ns = cpu;
	producer_delay_ns = delay;
}
NOIPA void quick_consume(void) { spin((double)unit_ms / 4); sink++; }

NOIPA void hand_over(void)
{
	char c = 1;

	switch (mode) {
	case BARRIER:
		pthread_barrier_wait(&both);
		return;
	case PIPE: case FIFO: case POLL: case EPOLL: case SELECT: case NESTED: case RAWEPOLL: case PAUSEDEPOLL:
		if (write(wfd, &c, 1) != 1)
			abort();
		return;
	case FUTEX:
		atomic_fetch_add(made, 1);
		syscall(SYS_futex, made, FUTEX_WAKE, 1, NULL, NULL, 0);
		return;
	case UDP:
		if (sendto(wfd, &c, 1, 0, (struct sockaddr *)&udp_to, sizeof(udp_to)) != 1)
			abort();
		return;
	case DGRAMNAME: case DGRAMPATH:
		if (sendto(wfd, &c, 1, 0, (struct sockaddr *)&un_to, un_len) != 1)
			abort();
		return;
	case UNIX: case SOCKETPAIR: case TCP:
		if (send(wfd, &c, 1, 0) != 1)
			abort();
		return;
	case EVENTFD:
		if (eventfd_write(wfd, 1))
			abort();
		return;
	case FULLPIPE: case FULLSOCK: case POLLOUT_: case EPOLLOUT_: case SELECTOUT:
		/* The item is taken out of the full channel: room for main's. */
		for (size_t got = 0; got < chunk;) {
			ssize_t n = read(rfd, page, chunk - got);
			if (n <= 0)
				abort();
			got += (size_t)n;
		}
		return;
	default:
		break;
	}
	pthread_mutex_lock(&m);
	queued++;
	pthread_cond_signal(&ready);
	pthread_mutex_unlock(&m);
}

NOIPA void take_one(void)
{
	char c;

	switch (mode) {
	case BARRIER:
		pthread_barrier_wait(&both);
		return;
	case PIPE: case FIFO:
		if (read(rfd, &c, 1) != 1)
			abort();
		return;
	case POLL: {
		/* Only wait: the byte is drained after the item is consumed
		 * (drain), so no read overlaps the producer's write. */
		struct pollfd v[2] = { { .fd = idle_fds[0], .events = POLLIN }, { .fd = rfd, .events = POLLIN } };
		while (!(v[1].revents & POLLIN))
			if (poll(v, 2, -1) < 0)
				abort();
		return;
	}
	case SELECT: {
		/* The read set is overwritten by each call: filled anew. */
		fd_set rd;
		do {
			FD_ZERO(&rd);
			FD_SET(idle_fds[0], &rd);
			FD_SET(rfd, &rd);
			if (select((rfd > idle_fds[0] ? rfd : idle_fds[0]) + 1, &rd, NULL, NULL, NULL) < 0)
				abort();
		} while (!FD_ISSET(rfd, &rd));
		return;
	}
	case EPOLL: case RAWEPOLL: case PAUSEDEPOLL: {
		struct epoll_event ev = { 0 };
		while (ev.data.fd != rfd || !(ev.events & EPOLLIN))
			if (epoll_wait(epfd, &ev, 1, -1) < 0)
				abort();
		return;
	}
	case NESTED: {
		/* Wait on the outer set; then ask the inner one, without waiting. */
		struct epoll_event ev = { 0 };
		for (;;) {
			if (epoll_wait(outer, &ev, 1, -1) < 0)
				abort();
			if (epoll_wait(epfd, &ev, 1, 0) == 1 && ev.data.fd == rfd && (ev.events & EPOLLIN))
				return;
		}
	}
	case FUTEX: {
		unsigned now;
		while ((now = atomic_load(made)) == taken)
			syscall(SYS_futex, made, FUTEX_WAIT, now, NULL, NULL, 0);
		taken++;
		return;
	}
	case UDP: case DGRAMNAME: case DGRAMPATH:
		if (recvfrom(rfd, &c, 1, 0, NULL, NULL) != 1)
			abort();
		return;
	case UNIX: case SOCKETPAIR: case TCP:
		if (recv(rfd, &c, 1, 0) != 1)
			abort();
		return;
	case EVENTFD:
		/* One read takes every item counted so far. */
		if (!pending && eventfd_read(rfd, &pending))
			abort();
		pending--;
		return;
	case FULLPIPE: case FULLSOCK:
		/* Put the item in: the channel is full until the producer reads. */
		if (write(wfd, page, chunk) != (ssize_t)chunk)
			abort();
		return;
	case POLLOUT_: case EPOLLOUT_: case SELECTOUT: {
		/* Wait for room first (poll, epoll or select for writing), then
		 * write: the write itself never waits. */
		struct pollfd v = { .fd = wfd, .events = POLLOUT };
		struct epoll_event ev = { 0 };
		fd_set wr;
		if (mode == SELECTOUT)
			do {
				FD_ZERO(&wr);
				FD_SET(wfd, &wr);
				if (select(wfd + 1, NULL, &wr, NULL, NULL) < 0)
					abort();
			} while (!FD_ISSET(wfd, &wr));
		if (mode == POLLOUT_)
			while (!(v.revents & POLLOUT))
				if (poll(&v, 1, -1) < 0)
					abort();
		if (mode == EPOLLOUT_)
			while (!(ev.events & EPOLLOUT))
				if (epoll_wait(epfd, &ev, 1, -1) < 0)
					abort();
		if (write(wfd, page, chunk) != (ssize_t)chunk)
			abort();
		return;
	}
	default:
		break;
	}
	pthread_mutex_lock(&m);
	while (!queued)
		pthread_cond_wait(&ready, &m);
	queued--;
	pthread_mutex_unlock(&m);
}

/* poll, epoll, select: the item's byte, read once it was consumed. */
NOIPA void drain(void)
{
	char c;

	if ((mode == POLL || mode == EPOLL || mode == SELECT || mode == NESTED || mode == RAWEPOLL ||
	     mode == PAUSEDEPOLL) && read(rfd, &c, 1) != 1)
		abort();
}

static void *producer(void *arg)
{
	(void)arg;
	for (int i = 0; i < items; i++) {
		uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
		slow_produce();
		produce_ns += clock_ns(CLOCK_MONOTONIC) - t0;
		hand_over();
	}
	if (mode == MIXED)
		producer_sched();
	return NULL;
}

/* Both ends of a connection to a listening socket `l` at address `a`:
 * 0, or -1 with the cause on stderr. */
static int connect_to(int l, const struct sockaddr *a, socklen_t alen, int family)
{
	if (bind(l, a, alen) || listen(l, 1)) {
		perror("prodcons: bind/listen");
		return -1;
	}
	struct sockaddr_storage at;
	socklen_t atlen = sizeof(at);
	if (getsockname(l, (struct sockaddr *)&at, &atlen) || (wfd = socket(family, SOCK_STREAM, 0)) < 0 ||
	    connect(wfd, (struct sockaddr *)&at, atlen) || (rfd = accept(l, NULL, NULL)) < 0) {
		perror("prodcons: connect");
		return -1;
	}
	close(l);
	return 0;
}

/* pausedepoll: epfd, made while traced, is given the pipe while recording
 * is paused (tally_pause, found in the preloaded collector; not there when
 * run bare), then the idle pipe once it is resumed. */
static int fill_paused(void)
{
	int (*pause_on)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "tally_pause");
	int (*pause_off)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "tally_resume");
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = rfd };
	struct epoll_event idle = { .events = EPOLLIN, .data.fd = idle_fds[0] };

	if (pause_on)
		pause_on();
	int rc = epoll_ctl(epfd, EPOLL_CTL_ADD, rfd, &ev);
	if (pause_off)
		pause_off();
	return rc ? rc : epoll_ctl(epfd, EPOLL_CTL_ADD, idle_fds[0], &idle);
}

/* The mode's channel: 0, or -1 with the cause on stderr. */
static int open_channel(void)
{
	int fds[2], l;

	switch (mode) {
	case BARRIER:
		return pthread_barrier_init(&both, NULL, 2) ? -1 : 0;
	case PIPE:
		if (pipe(fds))
			return -1;
		rfd = fds[0], wfd = fds[1];
		return 0;
	case SOCKETPAIR:
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
			return -1;
		rfd = fds[0], wfd = fds[1];
		return 0;
	case FIFO: {
		char dir[] = "/tmp/prodcons.XXXXXX", path[64];
		if (!mkdtemp(dir))
			return -1;
		snprintf(path, sizeof(path), "%s/fifo", dir);
		if (mkfifo(path, 0600) || (rfd = open(path, O_RDONLY | O_NONBLOCK)) < 0 ||
		    (wfd = open(path, O_WRONLY)) < 0 || fcntl(rfd, F_SETFL, 0))
			return -1;
		unlink(path);
		rmdir(dir);
		return 0;
	}
	case UNIX: {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "prodcons.%d", (int)getpid());
		socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a.sun_path + 1));
		if ((l = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
			return -1;
		return connect_to(l, (struct sockaddr *)&a, alen, AF_UNIX);
	}
	case TCP: {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int one = 1;
		if ((l = socket(AF_INET, SOCK_STREAM, 0)) < 0 || connect_to(l, (struct sockaddr *)&a, sizeof(a), AF_INET))
			return -1;
		/* One byte an item: not held back waiting for the last one's ACK. */
		return setsockopt(wfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	case EVENTFD:
		rfd = wfd = eventfd(0, 0);
		return rfd < 0 ? -1 : 0;
	case POLL: case EPOLL: case SELECT: case NESTED: case RAWEPOLL: case PAUSEDEPOLL:
		if (pipe(fds) || pipe(idle_fds))
			return -1;
		rfd = fds[0], wfd = fds[1];
		if (mode == POLL || mode == SELECT)
			return 0;
		if ((epfd = epoll_create1(0)) < 0)
			return -1;
		if (mode == PAUSEDEPOLL)
			return fill_paused();
		for (int k = 0; k < 2; k++) {
			struct epoll_event ev = { .events = EPOLLIN, .data.fd = k ? rfd : idle_fds[0] };
			/* rawepoll: the set made unseen, as before a library was loaded */
			if (mode == RAWEPOLL ? syscall(SYS_epoll_ctl, epfd, EPOLL_CTL_ADD, ev.data.fd, &ev)
					     : epoll_ctl(epfd, EPOLL_CTL_ADD, ev.data.fd, &ev))
				return -1;
		}
		if (mode == NESTED) {
			struct epoll_event ev = { .events = EPOLLIN, .data.fd = epfd };
			if ((outer = epoll_create1(0)) < 0 || epoll_ctl(outer, EPOLL_CTL_ADD, epfd, &ev))
				return -1;
		}
		return 0;
	case FUTEX:
		made = mmap(NULL, sizeof(*made), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		return made == MAP_FAILED ? -1 : 0;
	case FULLPIPE: case POLLOUT_: case EPOLLOUT_: case SELECTOUT:
		if (pipe(fds))
			return -1;
		rfd = fds[0], wfd = fds[1];
		chunk = 4096;
		if (fcntl(wfd, F_SETPIPE_SZ, (int)chunk) != (int)chunk) {
			perror("prodcons: a pipe of one page");
			return -1;
		}
		if (mode == EPOLLOUT_) {
			struct epoll_event ev = { .events = EPOLLOUT, .data.fd = wfd };
			if ((epfd = epoll_create1(0)) < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, wfd, &ev))
				return -1;
		}
		return write(wfd, page, chunk) == (ssize_t)chunk ? 0 : -1;
	case DGRAMNAME:
		/* main's socket bound to an abstract name; the producer's,
		 * unconnected, sends to that name */
		un_to.sun_family = AF_UNIX;
		snprintf(un_to.sun_path + 1, sizeof(un_to.sun_path) - 1, "prodcons-name.%d", (int)getpid());
		un_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(un_to.sun_path + 1));
		if ((rfd = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0 || bind(rfd, (struct sockaddr *)&un_to, un_len) ||
		    (wfd = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0) {
			perror("prodcons: unix datagram sockets");
			return -1;
		}
		return 0;
	case DGRAMPATH: {
		/* main's socket bound to "./dgram.sock" in a directory of its
		 * own (its working directory then); the producer's sends to
		 * the same file by its absolute path */
		static char dir[] = "/tmp/prodcons.XXXXXX";
		struct sockaddr_un here = { .sun_family = AF_UNIX, .sun_path = "./dgram.sock" };
		if (!mkdtemp(dir) || chdir(dir)) {
			perror("prodcons: a directory for the socket");
			return -1;
		}
		un_to.sun_family = AF_UNIX;
		snprintf(un_to.sun_path, sizeof(un_to.sun_path), "%s/dgram.sock", dir);
		un_len = sizeof(un_to);
		if ((rfd = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0 || bind(rfd, (struct sockaddr *)&here, sizeof(here)) ||
		    (wfd = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0) {
			perror("prodcons: unix datagram sockets");
			return -1;
		}
		return 0;
	}
	case FULLSOCK: {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "prodcons.%d", (int)getpid());
		socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a.sun_path + 1));
		if ((rfd = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0 || bind(rfd, (struct sockaddr *)&a, alen) ||
		    (wfd = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0 || connect(wfd, (struct sockaddr *)&a, alen) ||
		    fcntl(wfd, F_SETFL, O_NONBLOCK)) {
			perror("prodcons: unix datagram sockets");
			return -1;
		}
		while (write(wfd, page, chunk) > 0)
			;                  /* full: the next write waits */
		return fcntl(wfd, F_SETFL, 0);
	}
	case UDP: {
		socklen_t alen = sizeof(udp_to);
		udp_to = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		if ((rfd = socket(AF_INET, SOCK_DGRAM, 0)) < 0 || bind(rfd, (struct sockaddr *)&udp_to, sizeof(udp_to)) ||
		    getsockname(rfd, (struct sockaddr *)&udp_to, &alen) || (wfd = socket(AF_INET, SOCK_DGRAM, 0)) < 0) {
			perror("prodcons: udp");
			return -1;
		}
		return 0;
	}
	default:
		return 0;
	}
}

int main(int argc, char **argv)
{
	pthread_t t;
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	size_t k = 0;

	while (argc > 1 && k < sizeof(modes) / sizeof(modes[0]) && strcmp(argv[1], modes[k]))
		k++;
	if (argc < 2 || k == sizeof(modes) / sizeof(modes[0])) {
		fprintf(stderr, "usage: prodcons cond|pipe|sleep|mixed|barrier|fifo|unix|socketpair|tcp|eventfd|poll|epoll|select|udp|futex|"
				"fullpipe|fullsock|nested|rawepoll|pollout|epollout|dgramname|selectout|dgrampath|pausedepoll "
				"[ITEMS [UNIT_MS]]\n");
		return 2;
	}
	mode = (enum mode)k;
	use_sleep = mode == SLEEP;
	if (argc > 2)
		items = atoi(argv[2]);
	if (argc > 3)
		unit_ms = atol(argv[3]);
	if (open_channel()) {
		perror("prodcons: making the channel");
		return 3;
	}
	pthread_create(&t, NULL, producer, NULL);
	for (int i = 0; i < items; i++) {
		take_one();
		quick_consume();
		drain();
	}
	/* poll and after (epoll, select, udp, futex, fullpipe, ...): main does not join the producer (its last item
	 * was its last act), so that the path can reach the producer only
	 * through main's waits for items, not through a join. */
	if (mode < POLL)
		pthread_join(t, NULL);
	if (mode == DGRAMPATH) {
		char cwd[64];
		if (getcwd(cwd, sizeof(cwd)) && !unlink("dgram.sock") && !chdir("/"))
			rmdir(cwd);
	}
	printf("wall %llu produce %llu", (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - t0),
	       (unsigned long long)produce_ns);
	if (mode == MIXED)
		printf(" napped %llu cpu %llu delay %llu", (unsigned long long)napped_ns,
		       (unsigned long long)producer_cpu_ns, (unsigned long long)producer_delay_ns);
	printf("\n");
	return 0;
}
