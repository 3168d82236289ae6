/* SPDX-License-Identifier: MIT
 *
 * cli_kernel_blocked.c — the kernel's stacks of the threads that are
 * blocked when `tally record -p --kernel --states` attaches
 * (cli_kernel_blocked.h).
 *
 * The context-switch events (cli_kernel.c) see a thread's switches from
 * the attach on: a block under way then has no switch of its own, and its
 * interval (the collector's EXP_STATE_FROM_ATTACH, from the attach to the
 * thread's next switch-in) would carry no kernel chain.  The kernel keeps
 * that stack in /proc/PID/task/TID/stack (readable with CAP_SYS_ADMIN
 * only), as "[<0>] name+0xoff/0xsize [module]" lines, scheduler frames
 * left out; its addresses are hidden, so each frame is placed by its name
 * in /proc/kallsyms.  Read after the collector's "started" (so after its
 * intervals began), and kept only when the thread did not run meanwhile:
 * its state is S or D and its schedstat run count is the same before and
 * after the read.  Each is one KERNEL_SWITCH record timed before the read:
 * the analyzer joins the last switch at or before an interval's end to
 * it (exp_read_kernel.c), and a thread that did not run between the attach
 * and the read is still in the block that began before the attach.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli_kernel.h"
#include "cli/cli_kernel_blocked.h"
#include "format/exp_records.h"
#include "format/exp_schedstat.h"

struct kname {
	const char *name;
	uint64_t addr;
};

/* The whole of a /proc file (malloc'd, NUL-terminated), or NULL with errno. */
static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0, cap = 0;
	char *buf = NULL;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - n < 65536) {
			char *q = realloc(buf, cap = cap ? 2 * cap : 65536 + 1);
			if (!q) {
				free(buf);
				close(fd);
				errno = ENOMEM;
				return NULL;
			}
			buf = q;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct kname *)a)->name, ((const struct kname *)b)->name);
}

/* Place each of the n names (sorted) by /proc/kallsyms' text symbols,
 * read once; a name not found keeps address 0.  False: unreadable. */
static bool place_names(struct kname *v, size_t n)
{
	char *buf = slurp("/proc/kallsyms", NULL);

	if (!buf)
		return false;
	for (char *line = buf, *next; *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = 0;
		char *end;
		uint64_t addr = strtoull(line, &end, 16);
		if (end[0] != ' ' || !end[1] || !strchr("tTwW", end[1]) || end[2] != ' ' || !addr)
			continue;
		char *name = end + 3, *tab = strchr(name, '\t');
		if (tab)
			*tab = 0;                /* "\t[module]" */
		struct kname key = { name, 0 }, *k = bsearch(&key, v, n, sizeof(*v), by_name);
		if (k && !k->addr)
			k->addr = addr;          /* the first of a name (a static one may repeat) */
	}
	free(buf);
	return true;
}

/* Thread `tid`'s state letter and schedstat run count (false: unreadable). */
static bool state_of(pid_t pid, pid_t tid, char *state, unsigned long long *runs)
{
	char path[96], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	const char *paren = strrchr(buf, ')');
	if (!paren || paren[1] != ' ')
		return false;
	*state = paren[2];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	struct exp_schedstat st;
	f = fopen(path, "r");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	if (!exp_schedstat_parse(buf, &st))
		return false;
	*runs = st.slices;
	return true;
}

/* The "[<0>] name+0xoff/0xsize [module]" lines of a /proc stack, cut in
 * place into names (ks[].name) and offsets: how many, at most max. */
static size_t frames_of(char *text, struct kname *ks, uint64_t *offs, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save)) {
		char *name = strstr(line, "] ");
		char *plus = name ? strchr(name + 2, '+') : NULL;
		if (!plus)
			continue;
		*plus = 0;
		offs[n] = strtoull(plus + 1, NULL, 16);
		ks[n++] = (struct kname){ name + 2, 0 };
	}
	return n;
}

void cli_kernel_blocked_read(pid_t pid, struct cli_kblocked *out)
{
	char path[96];

	memset(out, 0, sizeof(*out));
	out->pid = pid;            /* the log names /proc/PID/... whatever fails */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d) {
		out->err = errno;
		return;
	}
	for (struct dirent *e; (e = readdir(d)) && !out->err;) {
		pid_t tid = (pid_t)atoi(e->d_name);
		char st, st2;
		unsigned long long runs, runs2;
		if (tid <= 0 || !state_of(pid, tid, &st, &runs) || (st != 'S' && st != 'D'))
			continue;
		out->blocked++;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", (int)pid, (int)tid);
		char *text = slurp(path, NULL);
		if (!text) {
			out->err = errno;            /* EACCES: CAP_SYS_ADMIN only */
			break;
		}
		if (!state_of(pid, tid, &st2, &runs2) || runs2 != runs || (st2 != 'S' && st2 != 'D')) {
			out->moved++;                /* it ran meanwhile: not the block's */
			free(text);
			continue;
		}
		struct cli_kblocked_stack *q = realloc(out->stacks, (out->n + 1) * sizeof(*q));
		if (!q) {
			free(text);
			out->err = ENOMEM;
			break;
		}
		out->stacks = q;
		out->stacks[out->n++] = (struct cli_kblocked_stack){
			tid, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec, text };
	}
	closedir(d);
}

void cli_kernel_blocked_write(struct cli_kernel *k, struct cli_kblocked *kb)
{
	size_t nall = 0, nsorted = 0;
	struct kname *all = NULL;
	uint64_t *offs = NULL;
	size_t *first = calloc(kb->n + 1, sizeof(*first));

	/* Every frame's name, then all placed by one read of kallsyms. */
	for (size_t i = 0; first && i < kb->n; i++) {
		struct kname *q = realloc(all, (nall + EXP_KERNEL_MAX_FRAMES) * sizeof(*q));
		uint64_t *o = realloc(offs, (nall + EXP_KERNEL_MAX_FRAMES) * sizeof(*o));
		if (q)
			all = q;
		if (o)
			offs = o;
		if (!q || !o)
			break;
		first[i] = nall;
		nall += frames_of(kb->stacks[i].text, all + nall, offs + nall, EXP_KERNEL_MAX_FRAMES);
		first[i + 1] = nall;
	}
	struct kname *sorted = nall ? malloc(nall * sizeof(*sorted)) : NULL;
	if (sorted) {
		memcpy(sorted, all, nall * sizeof(*sorted));
		qsort(sorted, nall, sizeof(*sorted), by_name);
		size_t u = 0;                    /* each name once */
		for (size_t i = 0; i < nall; i++)
			if (!u || strcmp(sorted[u - 1].name, sorted[i].name))
				sorted[u++] = sorted[i];
		nsorted = u;
		if (!place_names(sorted, nsorted))
			kb->err = errno ? errno : ENOENT;
	}
	for (size_t i = 0; sorted && !kb->err && i < kb->n; i++) {
		uint64_t pcs[EXP_KERNEL_MAX_FRAMES];
		size_t n = 0;
		for (size_t f = first[i]; f < first[i + 1]; f++) {
			const struct kname *s = bsearch(&all[f], sorted, nsorted, sizeof(*sorted), by_name);
			if (s && s->addr)
				pcs[n++] = s->addr + offs[f];
		}
		if (!n || pcs[0] < EXP_KERNEL_ADDR_MIN) {
			kb->unplaced++;              /* no frame, or kallsyms' addresses hidden */
			continue;
		}
		cli_kernel_switch_chain(k, (uint32_t)kb->pid, (uint32_t)kb->stacks[i].tid, kb->stacks[i].time_ns,
					pcs, n);
		kb->read++;
	}
	if (!sorted && nall)
		kb->err = ENOMEM;
	free(sorted);
	free(all);
	free(offs);
	free(first);
	for (size_t i = 0; i < kb->n; i++)
		free(kb->stacks[i].text);
	free(kb->stacks);
	kb->stacks = NULL;
	kb->n = 0;
}
