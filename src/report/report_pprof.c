/* SPDX-License-Identifier: MIT
 *
 * report_pprof.c — `tally export --format pprof`: the profile.proto format
 * of Google's pprof (and of Go, Parca, Pyroscope...), gzip-compressed.
 *
 * The protobuf wire format is written by hand: a handful of varints and
 * length-delimited fields, which is less code than generating and linking a
 * protobuf library for one message.  One Location per function (address =
 * its link-time start), one Sample per entry (locations leaf first), one
 * value per metric that has data.  Field numbers follow profile.proto:
 * Profile{sample_type 1, sample 2, mapping 3, location 4, function 5,
 * string_table 6, time_nanos 9, duration_nanos 10, period_type 11,
 * period 12, default_sample_type 14}; ValueType{type 1, unit 2};
 * Sample{location_id 1, value 2}; Location{id 1, mapping_id 2, address 3,
 * line 4}; Line{function_id 1}; Function{id 1, name 2, system_name 3,
 * filename 4}; Mapping{id 1, filename 5, has_functions 7}.  The message is
 * built in memory; out of memory sets a flag that every buffer shares, and
 * nothing is written (-1, errno ENOMEM).  Compressed at zlib's fastest
 * level, as Go's runtime/pprof writes its profiles: on a 2 M-sample
 * call-heavy profile (11.0 MB raw) level 6 took 0.64 s of CPU, level 1
 * 0.16 s, for a file 28% larger (4.3 MB instead of 3.4).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "model/model_map.h"
#include "report/report.h"

struct buf {
	uint8_t *p;
	size_t n, cap;
	bool *oom;                 /* shared by the buffers of one export */
};

static void put(struct buf *b, const void *data, size_t len)
{
	if (*b->oom)
		return;
	if (b->n + len > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->n + len)
			cap *= 2;
		uint8_t *p = realloc(b->p, cap);
		if (!p) {
			*b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, len);
	b->n += len;
}

static void varint(struct buf *b, uint64_t v)
{
	uint8_t tmp[10];
	int n = 0;

	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put(b, tmp, (size_t)n);
}

/* Field `f` as a varint (wire type 0); zero values are left out. */
static void field_varint(struct buf *b, int f, uint64_t v)
{
	if (!v)
		return;
	varint(b, (uint64_t)f << 3);
	varint(b, v);
}

/* Field `f` holding the bytes of `inner` (wire type 2). */
static void field_bytes(struct buf *b, int f, const void *data, size_t len)
{
	varint(b, (uint64_t)f << 3 | 2);
	varint(b, len);
	put(b, data, len);
}

/* The string table: index of each distinct string (0 is ""). */
struct strings {
	struct buf out;            /* the encoded string_table fields */
	struct model_map index;    /* hash -> index + 1 (collisions checked) */
	const char **list;
	size_t n, cap;
};

static uint64_t str(struct strings *s, const char *v)
{
	uint64_t key = model_hash_str(0, v) | 1;

	for (;;) {
		uint64_t *i = model_map_get(&s->index, key);
		if (!i)
			break;
		if (!strcmp(s->list[*i - 1], v))
			return *i - 1;
		key = model_hash64(key) | 1;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		const char **list = realloc(s->list, cap * sizeof(*s->list));
		if (!list) {
			*s->out.oom = true;
			return 0;
		}
		s->list = list;
		s->cap = cap;
	}
	if (!model_map_put(&s->index, key, s->n + 1, NULL)) {
		*s->out.oom = true;
		return 0;
	}
	s->list[s->n] = v;
	field_bytes(&s->out, 6, v, strlen(v));
	return s->n++;
}

static void value_type(struct buf *b, int f, struct strings *s, const char *type, const char *unit)
{
	struct buf v = { .oom = b->oom };

	field_varint(&v, 1, str(s, type));
	field_varint(&v, 2, str(s, unit));
	field_bytes(b, f, v.p, v.n);
	free(v.p);
}

/* The process's command line (its log's argv; the founder's, before
 * argv was logged, the command tally record ran), or NULL. */
static const char *proc_command(const struct model_proc *p)
{
	const char *cmd = p->src ? exp_proc_log(p->src, "argv") : NULL;

	if (!cmd && p->src && !p->src->lineage[0])
		cmd = exp_proc_log(p->src, "command");
	return cmd && cmd[0] ? cmd : NULL;
}

/* The founder's program (the first process of the run), or NULL. */
static const char *founder_exe(const struct model *m)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].src && !m->procs[i].src->lineage[0] && m->procs[i].src->exe &&
		    m->procs[i].src->exe[0])
			return m->procs[i].src->exe;
	return NULL;
}

int report_pprof(const char *path, const struct model *m)
{
	bool oom = false;
	struct buf prof = { .oom = &oom }, msg = { .oom = &oom }, packed = { .oom = &oom };
	struct strings s = { .out = { .oom = &oom } };
	int metrics[MODEL_METRIC_COUNT], nm = 0;
	char *lines[8] = { NULL };

	str(&s, "");
	for (int k = 0; k < MODEL_METRIC_COUNT; k++)
		if (m->present & (1u << k))
			metrics[nm++] = k;
	if (!nm)
		metrics[nm++] = MODEL_CPU;
	for (int i = 0; i < nm; i++)
		value_type(&prof, 1, &s, model_metric_info(metrics[i])->name,
			   model_unit_pprof(model_metric_info(metrics[i])->unit));

	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		bool any = false;
		for (int k = 0; k < nm; k++)
			any |= model_entry_value(e, metrics[k]) != 0;
		if (!any)
			continue;
		msg.n = packed.n = 0;
		for (uint32_t j = e->n; j-- > 0;)
			varint(&packed, (uint64_t)e->funcs[j] + 1);     /* location ids, leaf first */
		field_bytes(&msg, 1, packed.p, packed.n);
		packed.n = 0;
		for (int k = 0; k < nm; k++)
			varint(&packed, model_entry_value(e, metrics[k]));
		field_bytes(&msg, 2, packed.p, packed.n);
		field_bytes(&prof, 2, msg.p, msg.n);
	}
	/* One mapping per load object path, one location and function per
	 * function; the first mapping, which pprof titles the profile with
	 * ("File: ..."), is the founder's program, not the object of the first
	 * function met (libc.so.6 in a build of many processes). */
	struct model_map mapping = { 0 };
	uint64_t nmap = 0;
	const char *exe = founder_exe(m);
	for (uint32_t f = exe ? UINT32_MAX : 0; f == UINT32_MAX || f < m->nfuncs; f++) {
		const struct model_func *fn = f == UINT32_MAX ? NULL : &m->funcs[f];
		const char *opath = fn ? fn->path : exe;
		uint64_t key = model_hash_str(0, opath) | 1, mid = 0;
		if (opath[0]) {
			bool inserted;
			uint64_t *v = model_map_put(&mapping, key, 0, &inserted);
			if (!v) {
				oom = true;
				break;
			}
			if (inserted) {
				*v = ++nmap;
				msg.n = 0;
				field_varint(&msg, 1, nmap);
				field_varint(&msg, 5, str(&s, opath));
				field_varint(&msg, 7, 1);
				field_bytes(&prof, 3, msg.p, msg.n);
				v = model_map_get(&mapping, key);
			}
			mid = *v;
		}
		if (!fn)
			continue;
		struct buf line = { .oom = &oom };
		field_varint(&line, 1, (uint64_t)f + 1);
		msg.n = 0;
		field_varint(&msg, 1, (uint64_t)f + 1);
		field_varint(&msg, 2, mid);
		field_varint(&msg, 3, fn->addr);
		field_bytes(&msg, 4, line.p, line.n);
		field_bytes(&prof, 4, msg.p, msg.n);
		free(line.p);
		msg.n = 0;
		field_varint(&msg, 1, (uint64_t)f + 1);
		field_varint(&msg, 2, str(&s, fn->name));
		field_varint(&msg, 3, str(&s, fn->name));
		field_varint(&msg, 4, str(&s, fn->object));
		field_bytes(&prof, 5, msg.p, msg.n);
	}
	model_map_free(&mapping);
	value_type(&prof, 11, &s, model_metric_info(metrics[0])->name,
		   model_unit_pprof(model_metric_info(metrics[0])->unit));
	/* what pprof shows first: the first metric (cpu), not its last (samples) */
	field_varint(&prof, 14, str(&s, model_metric_info(metrics[0])->name));
	/* the command each process ran, as pprof's comments (shown under the
	 * title): the founder's, then each other distinct one, at most 8 */
	const char *seen[8];
	for (size_t i = 0, n = 0; i < m->nprocs && n < 8; i++) {
		const char *cmd = proc_command(&m->procs[i]);
		size_t j = 0;
		while (cmd && j < n && strcmp(seen[j], cmd))
			j++;
		if (!cmd || j < n)
			continue;
		seen[n] = cmd;
		/* (the string table keeps the pointer: freed at the end) */
		size_t len = strlen(cmd) + sizeof("command: ");
		if (!(lines[n] = malloc(len))) {
			oom = true;
			break;
		}
		snprintf(lines[n], len, "%s %s", n ? "also:" : "command:", cmd);
		field_varint(&prof, 13, str(&s, lines[n]));
		n++;
	}
	put(&prof, s.out.p, s.out.n);        /* the string table, complete now */

	int rc = -1;
	int fd = path || oom ? -1 : dup(STDOUT_FILENO);
	gzFile gz = oom ? NULL : path ? gzopen(path, "wb1") : fd >= 0 ? gzdopen(fd, "wb1") : NULL;
	if (!gz && fd >= 0)
		close(fd);
	if (oom)
		errno = ENOMEM;
	if (gz) {
		rc = gzwrite(gz, prof.p, (unsigned)prof.n) == (int)prof.n ? 0 : -1;
		if (gzclose(gz) != Z_OK)
			rc = -1;
	}
	free(prof.p);
	free(msg.p);
	free(packed.p);
	free(s.out.p);
	free(s.list);
	for (size_t i = 0; i < 8; i++)
		free(lines[i]);
	model_map_free(&s.index);
	return rc;
}
