/* SPDX-License-Identifier: MIT
 *
 * gmon_read.c — the bounds-checked gmon.out reader (layout in gmon_read.h).
 * Called by `tally gprof` once per file named on its command line; the files
 * are summed: histograms of the same address range add up bin by bin, arcs
 * are appended.  Every read is checked against the bytes left, so a
 * truncated or corrupt file gives a one-line error naming the file and the
 * offset of the record, never a crash or an allocation larger than the file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/gmon_read.h"

/* A cursor over one file's bytes. */
struct gmon_cur {
	const char *name;
	const uint8_t *p;
	size_t len, off;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4)))
static int gmon_corrupt(struct gmon_cur *c, size_t off, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s: offset 0x%zx: %s", c->name, off, msg);
	return -1;
}

static uint64_t gmon_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* Does the file have `n` more bytes? */
static int gmon_need(struct gmon_cur *c, size_t rec_off, size_t n, const char *what)
{
	if (c->len - c->off >= n)
		return 0;
	return gmon_corrupt(c, rec_off, "truncated %s: needs %zu bytes, %zu left", what, n,
			    c->len - c->off);
}

static int gmon_grow(void *arr, size_t *cap, size_t n, size_t more, size_t size)
{
	void **p = arr;

	if (n + more <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 64;
	while (ncap < n + more)
		ncap *= 2;
	void *q = realloc(*p, ncap * size);
	if (!q)
		return -1;
	*p = q;
	*cap = ncap;
	return 0;
}

/* The histogram `h` read at `off` joins the profile: added to the one with
 * the same range, or a new one.  Histograms must agree on the rate and the
 * bin size, and different ranges must not overlap (gprof's rules). */
static int gmon_hist_merge(struct gmon_profile *p, struct gmon_cur *c, size_t off,
			   struct gmon_hist *h, const uint8_t *bins)
{
	struct gmon_hist *same = NULL;

	for (size_t i = 0; i < p->nhists; i++) {
		struct gmon_hist *o = &p->hists[i];
		if (o->rate_hz != h->rate_hz || strcmp(o->dimen, h->dimen))
			return gmon_corrupt(c, off,
				"histogram at %u Hz (%s) differs from %s's at %u Hz (%s): "
				"profiles of different runs cannot be summed",
				h->rate_hz, h->dimen, p->first, o->rate_hz, o->dimen);
		if (o->low_pc == h->low_pc && o->high_pc == h->high_pc) {
			if (o->nbins != h->nbins)
				return gmon_corrupt(c, off,
					"histogram of 0x%llx-0x%llx has %u bins, %s's has %u: "
					"not profiles of the same program",
					(unsigned long long)h->low_pc, (unsigned long long)h->high_pc,
					h->nbins, p->first, o->nbins);
			same = o;
		} else if (o->low_pc < h->high_pc && h->low_pc < o->high_pc) {
			return gmon_corrupt(c, off,
				"histogram of 0x%llx-0x%llx overlaps %s's of 0x%llx-0x%llx: "
				"not profiles of the same program",
				(unsigned long long)h->low_pc, (unsigned long long)h->high_pc,
				p->first, (unsigned long long)o->low_pc,
				(unsigned long long)o->high_pc);
		}
	}
	if (!same) {
		struct gmon_hist *nv = realloc(p->hists, (p->nhists + 1) * sizeof(*nv));
		if (!nv)
			return gmon_corrupt(c, off, "out of memory");
		p->hists = nv;
		same = &p->hists[p->nhists];
		*same = *h;
		same->bins = calloc(h->nbins, sizeof(*same->bins));
		if (!same->bins)
			return gmon_corrupt(c, off, "out of memory for %u bins", h->nbins);
		p->nhists++;
	}
	for (uint32_t i = 0; i < h->nbins; i++) {
		uint64_t n = gmon_le(bins + 2 * (size_t)i, 2);
		same->bins[i] += n;
		p->samples += n;
	}
	return 0;
}

static int gmon_read_hist(struct gmon_profile *p, struct gmon_cur *c, size_t off)
{
	const uint8_t *b = c->p + c->off;
	struct gmon_hist h = { 0 };

	if (gmon_need(c, off, GMON_HIST_HEADER_BYTES, "histogram record"))
		return -1;
	h.low_pc = gmon_le(b, 8);
	h.high_pc = gmon_le(b + 8, 8);
	h.nbins = (uint32_t)gmon_le(b + 16, 4);
	h.rate_hz = (uint32_t)gmon_le(b + 20, 4);
	memcpy(h.dimen, b + 24, 15);
	h.dimen_abbrev = (char)b[39];
	if (h.high_pc <= h.low_pc)
		return gmon_corrupt(c, off, "histogram range 0x%llx-0x%llx is empty",
				    (unsigned long long)h.low_pc, (unsigned long long)h.high_pc);
	if (h.nbins == 0 || h.rate_hz == 0)
		return gmon_corrupt(c, off, "histogram with %u bins at %u Hz", h.nbins, h.rate_hz);
	c->off += GMON_HIST_HEADER_BYTES;
	if (gmon_need(c, off, 2 * (size_t)h.nbins, "histogram bins"))
		return -1;
	if (gmon_hist_merge(p, c, off, &h, c->p + c->off))
		return -1;
	c->off += 2 * (size_t)h.nbins;
	return 0;
}

static int gmon_read_arc(struct gmon_profile *p, struct gmon_cur *c, size_t off, size_t *cap)
{
	const uint8_t *b = c->p + c->off;

	if (gmon_need(c, off, GMON_ARC_BYTES, "arc record"))
		return -1;
	if (gmon_grow(&p->arcs, cap, p->narcs, 1, sizeof(*p->arcs)))
		return gmon_corrupt(c, off, "out of memory");
	p->arcs[p->narcs++] = (struct gmon_arc){ gmon_le(b, 8), gmon_le(b + 8, 8), gmon_le(b + 16, 4) };
	c->off += GMON_ARC_BYTES;
	return 0;
}

static int gmon_read_bb(struct gmon_profile *p, struct gmon_cur *c, size_t off, size_t *cap)
{
	if (gmon_need(c, off, 4, "basic-block record"))
		return -1;
	uint64_t n = gmon_le(c->p + c->off, 4);
	c->off += 4;
	if (n > (c->len - c->off) / GMON_BB_PAIR_BYTES)
		return gmon_corrupt(c, off, "truncated basic-block record: %llu counts need %llu bytes, %zu left",
				    (unsigned long long)n, (unsigned long long)n * GMON_BB_PAIR_BYTES,
				    c->len - c->off);
	if (gmon_grow(&p->bbs, cap, p->nbbs, (size_t)n, sizeof(*p->bbs)))
		return gmon_corrupt(c, off, "out of memory");
	for (uint64_t i = 0; i < n; i++, c->off += GMON_BB_PAIR_BYTES)
		p->bbs[p->nbbs++] = (struct gmon_bb){ gmon_le(c->p + c->off, 8),
						      gmon_le(c->p + c->off + 8, 8) };
	return 0;
}

int gmon_profile_add(struct gmon_profile *p, const char *name, const uint8_t *data, size_t len,
		     char *err, size_t errlen)
{
	struct gmon_cur c = { name, data, len, 0, err, errlen };
	size_t arc_cap = p->narcs, bb_cap = p->nbbs;

	if (len < GMON_HEADER_BYTES || memcmp(data, GMON_MAGIC, 4))
		return gmon_corrupt(&c, 0, "not a gmon.out file (no \"gmon\" header)");
	uint32_t version = (uint32_t)gmon_le(data + 4, 4);
	if (version != GMON_VERSION && version != 0)
		return gmon_corrupt(&c, 4, "gmon.out version %u, expected %d", version, GMON_VERSION);
	if (!p->nfiles)
		snprintf(p->first, sizeof(p->first), "%s", name);
	c.off = GMON_HEADER_BYTES;
	while (c.off < len) {
		size_t off = c.off;
		int rc;
		uint8_t tag = data[c.off++];
		switch (tag) {
		case GMON_TAG_TIME_HIST: rc = gmon_read_hist(p, &c, off); break;
		case GMON_TAG_CG_ARC: rc = gmon_read_arc(p, &c, off, &arc_cap); break;
		case GMON_TAG_BB_COUNT: rc = gmon_read_bb(p, &c, off, &bb_cap); break;
		default: rc = gmon_corrupt(&c, off, "unknown record tag %u", tag); break;
		}
		if (rc)
			return -1;
	}
	p->nfiles++;
	return 0;
}

int gmon_profile_read(struct gmon_profile *p, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = -1;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? cap * 2 : 65536);
			if (!nb) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto out;
			}
			buf = nb;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		goto out;
	}
	rc = gmon_profile_add(p, path, buf, len, err, errlen);
out:
	fclose(f);
	free(buf);
	return rc;
}

void gmon_profile_free(struct gmon_profile *p)
{
	for (size_t i = 0; i < p->nhists; i++)
		free(p->hists[i].bins);
	free(p->hists);
	free(p->arcs);
	free(p->bbs);
	memset(p, 0, sizeof(*p));
}
