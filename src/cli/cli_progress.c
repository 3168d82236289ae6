/* SPDX-License-Identifier: MIT
 *
 * cli_progress.c — the progress line (see cli_progress.h).
 *
 * The line is written into one of two buffers and published by an index,
 * so the timer's handler (SIGALRM, once, after the delay) always writes a
 * whole line with write(2), the only call it makes.  After that, each new
 * step writes its line at once.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli/cli_progress.h"

static char lines[2][640];
static volatile sig_atomic_t current = -1;     /* the buffer to show, -1: none */
static volatile sig_atomic_t shown;            /* a line is on the terminal */
static volatile sig_atomic_t due;              /* the delay has passed */
static bool started, tty;

static void show(void)
{
	int c = current;

	if (c < 0)
		return;
	ssize_t rc = write(STDERR_FILENO, lines[c], strlen(lines[c]));
	(void)rc;
	shown = 1;
}

static void on_alarm(int sig)
{
	(void)sig;
	due = 1;
	show();
}

static void start(void)
{
	const char *ms = getenv("TALLY_PROGRESS_MS");
	long delay = ms && *ms ? strtol(ms, NULL, 10) : 1000;
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct itimerval it = { .it_value = { delay / 1000, (delay % 1000) * 1000 } };

	started = true;
	tty = isatty(STDERR_FILENO);
	if (!tty)
		return;
	if (delay <= 0) {
		due = 1;
		return;
	}
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) == 0)
		setitimer(ITIMER_REAL, &it, NULL);
}

void cli_progress(const char *cmd, const char *what, const char *arg)
{
	if (!started)
		start();
	if (!tty)
		return;
	int next = current == 0 ? 1 : 0;
	snprintf(lines[next], sizeof(lines[next]), "\r\033[Ktally %s: %s%s%s...", cmd, what, *arg ? " " : "", arg);
	current = next;
	if (due)
		show();
}

void cli_progress_hide(void)
{
	if (tty && shown) {
		ssize_t rc = write(STDERR_FILENO, "\r\033[K", 4);
		(void)rc;
		shown = 0;
	}
}

void cli_progress_done(void)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };

	if (!tty)
		return;
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	current = -1;
	cli_progress_hide();
	due = 0;
	started = false;
}
