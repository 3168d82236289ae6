/* SPDX-License-Identifier: MIT
 *
 * cli_control.c — the writer's side of the control page (see
 * cli_control.h and format/exp_launch.h): `tally record --control
 * fifo:PATH` reads commands from PATH while the program runs, and `tally
 * control EXP off|on` sets the page of a running experiment.  The
 * collectors of the run see the change at their next sample or traced
 * event and log it at the time written here.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_control.h"
#include "cli/cli_record.h"
#include "format/exp_launch.h"

#define CMD "record"

struct cli_control {
	int fifo;                     /* O_RDWR: never at end of file */
	char path[PATH_MAX];
	bool made;                    /* we made the FIFO: removed at the end */
	struct exp_control_page *page;
	char line[256];               /* a command not yet ended by '\n' */
	size_t n;
};

int cli_control_check(const char *spec)
{
	if (strcmp(spec, "cmd") && (strncmp(spec, "fifo:", 5) || !spec[5])) {
		cli_error(CMD, "--control %s: expected fifo:PATH (a FIFO tally reads enable and "
			  "disable from) or cmd (tally control EXP off|on only)", spec);
		return -1;
	}
	return 0;
}

/* Store `off` and the time, then publish with seq (the collectors'
 * acquire pairs with this release). */
static void page_set(struct exp_control_page *p, bool off)
{
	atomic_store(&p->off, off ? 1u : 0u);
	atomic_store(&p->time_ns, cli_now_ns(CLOCK_MONOTONIC));
	atomic_fetch_add_explicit(&p->seq, 1, memory_order_release);
}

/* Map `dir`'s control page (made if `create`); NULL with errno. */
static struct exp_control_page *page_map(const char *dir, bool create)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, EXP_CONTROL_NAME);
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT | O_EXCL : 0), 0644);
	if (fd < 0)
		return NULL;
	if (create && ftruncate(fd, sizeof(struct exp_control_page)) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(struct exp_control_page)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	void *p = mmap(NULL, sizeof(struct exp_control_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	struct exp_control_page *c = p;
	if (create)
		c->magic = EXP_CONTROL_MAGIC;
	else if (c->magic != EXP_CONTROL_MAGIC) {
		munmap(p, sizeof(*c));
		errno = EINVAL;
		return NULL;
	}
	return c;
}

struct cli_control *cli_control_open(const char *spec, const char *dir)
{
	struct cli_control *c = calloc(1, sizeof(*c));
	struct stat st;

	if (!c) {
		cli_error(CMD, "--control: out of memory");
		return NULL;
	}
	c->fifo = -1;
	if (!strcmp(spec, "cmd")) {           /* the page alone */
		if (!(c->page = page_map(dir, true))) {
			cli_error(CMD, "--control: %s: %s", dir, strerror(errno));
			free(c);
			return NULL;
		}
		return c;
	}
	snprintf(c->path, sizeof(c->path), "%s", spec + 5);
	if (stat(c->path, &st) != 0) {
		if (errno != ENOENT || mkfifo(c->path, 0600) != 0) {
			cli_error(CMD, "--control: %s: %s", c->path, strerror(errno));
			free(c);
			return NULL;
		}
		c->made = true;
	} else if (!S_ISFIFO(st.st_mode)) {
		cli_error(CMD, "--control: %s: not a FIFO (give a new path, or one made by mkfifo)", c->path);
		free(c);
		return NULL;
	}
	c->fifo = open(c->path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (c->fifo < 0 || !(c->page = page_map(dir, true))) {
		cli_error(CMD, "--control: %s: %s", c->fifo < 0 ? c->path : dir, strerror(errno));
		if (c->fifo >= 0)
			close(c->fifo);
		if (c->made)
			unlink(c->path);
		free(c);
		return NULL;
	}
	return c;
}

/* One command line. */
static void command(struct cli_control *c, const char *cmd)
{
	if (!strcmp(cmd, "disable") || !strcmp(cmd, "pause") || !strcmp(cmd, "off"))
		page_set(c->page, true);
	else if (!strcmp(cmd, "enable") || !strcmp(cmd, "resume") || !strcmp(cmd, "on"))
		page_set(c->page, false);
	else if (*cmd)
		cli_warn(CMD, "--control: %s: \"%.40s\" is no command (disable or enable)", c->path, cmd);
}

void cli_control_poll(struct cli_control *c, int timeout_ms)
{
	struct pollfd p = { .fd = c->fifo, .events = POLLIN };
	char buf[256];
	ssize_t got;

	if (poll(&p, c->fifo >= 0, timeout_ms) <= 0 || c->fifo < 0)
		return;
	while ((got = read(c->fifo, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] == '\n' || buf[i] == '\r') {
				c->line[c->n < sizeof(c->line) ? c->n : sizeof(c->line) - 1] = 0;
				command(c, c->line);
				c->n = 0;
			} else if (c->n < sizeof(c->line) - 1) {
				c->line[c->n++] = buf[i];
			}
		}
}

void cli_control_close(struct cli_control *c)
{
	if (!c)
		return;
	if (c->n) {                   /* a last command with no newline */
		c->line[c->n] = 0;
		command(c, c->line);
	}
	if (c->fifo >= 0)
		close(c->fifo);
	if (c->made)
		unlink(c->path);
	munmap(c->page, sizeof(*c->page));
	free(c);
}

int cli_control_set(const char *dir, bool off, char *why, size_t why_len)
{
	struct exp_control_page *p = page_map(dir, false);

	if (!p) {
		if (errno == ENOENT)
			snprintf(why, why_len, "%s/%s: no control page (record with tally record --control "
				 "to control a run)", dir, EXP_CONTROL_NAME);
		else
			snprintf(why, why_len, "%s/%s: %s", dir, EXP_CONTROL_NAME,
				 errno == EINVAL ? "not a control page" : strerror(errno));
		return -1;
	}
	page_set(p, off);
	munmap(p, sizeof(*p));
	return 0;
}
