/* mpi_work.c — MPI jobs of known imbalance and traffic, for
 * tests/e2e/test_mpi.sh and bench/sections/90-mpi.sh.
 *
 *   mpi_work imbalance UNIT_MS
 *       Twice: every rank does work() for 1 UNIT of CPU time, the last rank
 *       for 3; then the first time all meet in MPI_Barrier, the second time
 *       the last rank sends 8 bytes to every other one, which wait for it in
 *       MPI_Wait.  The work split is 1:1:...:3.  Each rank prints the CPU
 *       time it measured outside its MPI calls, "outside RANK NS": the
 *       process's CPU time (all its threads, start-up included) less the
 *       main thread's in its MPI calls.  Besides work() that is the rank's
 *       fixed costs (loading, the MPI library's threads), which grow on a
 *       loaded machine and move the split away from 1:1:...:3.
 *   mpi_work bytes
 *       Rank r sends (r+1) MiB to rank r+1 (the last to rank 0) from
 *       send_bytes() with MPI_Send, and r messages of 8 bytes to rank 0 from
 *       send_tokens(); then an MPI_Allreduce of one int.
 *   mpi_work pingpong N
 *       Ranks 0 and 1 exchange N messages of 8 bytes (MPI_Send, MPI_Recv).
 *   mpi_work probe N
 *       Every rank calls MPI_Iprobe N times with nothing to find: the cost of
 *       a call that does no communication (bench: the tracer's own cost).
 *   mpi_work persistent
 *       Ranks 0 and 1 exchange 3 messages through persistent requests
 *       (MPI_Send_init, MPI_Recv_init, MPI_Start, MPI_Wait), which the tracer
 *       does not trace: 3 completions each it cannot name.
 *   mpi_work victim PIDFILE
 *       Every rank works and meets the others in MPI_Barrier, forever;
 *       rank 2 writes its pid to PIDFILE after 50 rounds (to be killed).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, size;
static volatile long calls;   /* counted after each call: no tail calls into MPI */

static double clock_ms(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
	return clock_ms(CLOCK_THREAD_CPUTIME_ID);
}

/* imbalance: the main thread's CPU time in its MPI calls, each made as
 * IN_MPI(call). */
static double in_mpi_ms;
#define IN_MPI(call)                               \
	do {                                       \
		double in_mpi_c0 = cpu_ms();       \
		call;                              \
		in_mpi_ms += cpu_ms() - in_mpi_c0; \
	} while (0)
/* ... and the wall time of its waits (MPI_Barrier, MPI_Wait), each made
 * as WAITED(call): what the tracer's mpi.time of them must be. */
static double waited_ms;
#define WAITED(call)                                                       \
	do {                                                               \
		double waited_t0 = clock_ms(CLOCK_MONOTONIC);              \
		call;                                                      \
		waited_ms += clock_ms(CLOCK_MONOTONIC) - waited_t0;        \
	} while (0)

/* Burn `ms` milliseconds of this thread's CPU time. */
__attribute__((noinline)) static double work(double ms)
{
	volatile double x = 1.0;
	double until = cpu_ms() + ms;
	while (cpu_ms() < until)
		for (int i = 0; i < 20000; i++)
			x = x * 1.0000001 + 1e-9;
	return x;
}

__attribute__((noinline)) static void wait_for_last(void)
{
	char token[8];
	MPI_Request req;
	IN_MPI(MPI_Irecv(token, 8, MPI_BYTE, size - 1, 7, MPI_COMM_WORLD, &req));
	WAITED(IN_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE)));
	calls++;
}

__attribute__((noinline)) static void release_others(void)
{
	char token[8] = "go";
	for (int r = 0; r < size - 1; r++)
		IN_MPI(MPI_Send(token, 8, MPI_BYTE, r, 7, MPI_COMM_WORLD));
}

static void imbalance(double unit)
{
	double units = rank == size - 1 ? 3 : 1;

	work(units * unit);
	WAITED(IN_MPI(MPI_Barrier(MPI_COMM_WORLD)));
	work(units * unit);
	if (rank == size - 1)
		release_others();
	else
		wait_for_last();
	printf("outside %d %.0f\n", rank, (clock_ms(CLOCK_PROCESS_CPUTIME_ID) - in_mpi_ms) * 1e6);
	printf("waited %d %.0f\n", rank, waited_ms * 1e6);
	fflush(stdout);
}

__attribute__((noinline)) static void send_bytes(const char *buf, int n, int to)
{
	MPI_Send(buf, n, MPI_BYTE, to, 1, MPI_COMM_WORLD);
	calls++;
}

__attribute__((noinline)) static void recv_bytes(char *buf, int n, int from)
{
	MPI_Recv(buf, n, MPI_BYTE, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	calls++;
}

__attribute__((noinline)) static void send_tokens(void)
{
	long token = rank;
	for (int i = 0; i < rank; i++)
		MPI_Send(&token, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
}

static void bytes(void)
{
	int to = (rank + 1) % size, from = (rank + size - 1) % size;
	int out = (rank + 1) << 20, in = (from + 1) << 20;
	char *sbuf = calloc(1, (size_t)out), *rbuf = malloc((size_t)in);

	/* Even ranks send first, odd ranks receive first: no cycle of senders. */
	if (rank % 2 == 0) {
		send_bytes(sbuf, out, to);
		recv_bytes(rbuf, in, from);
	} else {
		recv_bytes(rbuf, in, from);
		send_bytes(sbuf, out, to);
	}
	send_tokens();
	if (rank == 0) {
		long token;
		for (int i = 0; i < size * (size - 1) / 2; i++)
			MPI_Recv(&token, 8, MPI_BYTE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	int one = 1, sum = 0;
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (sum != size)
		abort();
	free(sbuf);
	free(rbuf);
}

static void pingpong(long n)
{
	char msg[8] = { 0 };
	struct timespec t0, t1;

	MPI_Barrier(MPI_COMM_WORLD);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n && rank < 2; i++) {
		if (rank == 0) {
			MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(msg, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(msg, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rank == 0)
		printf("pingpong %ld round trips %.0f ns each\n", n,
		       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (double)n);
}

static void probe(long n)
{
	struct timespec t0, t1;
	int flag;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rank == 0)
		printf("probe %ld calls %.1f ns each\n", n,
		       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (double)n);
}

static void persistent(void)
{
	long msg = rank;
	MPI_Request req;

	if (rank > 1)
		return;
	if (rank == 0)
		MPI_Send_init(&msg, 1, MPI_LONG, 1, 3, MPI_COMM_WORLD, &req);
	else
		MPI_Recv_init(&msg, 1, MPI_LONG, 0, 3, MPI_COMM_WORLD, &req);
	for (int i = 0; i < 3; i++) {
		MPI_Start(&req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	}
	MPI_Request_free(&req);
}

static void victim(const char *pidfile)
{
	for (long round = 0;; round++) {
		work(2);
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 2 && round == 50) {
			FILE *f = fopen(pidfile, "w");
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
}

int main(int argc, char **argv)
{
	IN_MPI(MPI_Init(&argc, &argv));
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "imbalance") && argc > 2)
		imbalance(atof(argv[2]));
	else if (!strcmp(mode, "bytes"))
		bytes();
	else if (!strcmp(mode, "pingpong") && argc > 2)
		pingpong(atol(argv[2]));
	else if (!strcmp(mode, "persistent"))
		persistent();
	else if (!strcmp(mode, "probe") && argc > 2)
		probe(atol(argv[2]));
	else if (!strcmp(mode, "victim") && argc > 2)
		victim(argv[2]);
	else {
		fprintf(stderr, "usage: mpi_work imbalance UNIT_MS | bytes | pingpong N | probe N | persistent | victim PIDFILE\n");
		MPI_Abort(MPI_COMM_WORLD, 64);
	}
	MPI_Finalize();
	return 0;
}
