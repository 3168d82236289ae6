/* SPDX-License-Identifier: MIT
 *
 * report_html.c — `tally html`: one self-contained page (no network, no
 * server, works from file://) with the overview, a flame graph and its
 * bottom-up form, the functions table with callers and callees, a timeline
 * of the threads and the annotated source of the hot functions; or, with a
 * baseline, the same comparing two runs (a differential flame graph).
 *
 * The page is src/report/html/page.html with its style and script
 * (report_html_assets.S embeds them at build time) and one JSON object of
 * data, packed (gzip and base64: report_html_pack.c).  The data is aggregated here, not in the browser: the call tree of
 * deduplicated functions, timeline bins, the overview and the source tables
 * as the JSON views of `tally report` and `tally annotate` print them; raw
 * samples are not embedded.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/report_html.h"
#include "report/report_json_write.h"
#include "report/report_source.h"
#include "symbols/sym.h"

extern const char report_html_page[], report_html_css[], report_html_js[];

/* Hot functions whose source files are annotated in the page. */
#define HOT_SOURCES 8
/* A source table larger than this is left out (a 7,000-line function). */
#define MAX_SOURCE_BYTES (256 * 1024)

static void metrics_out(FILE *out, const struct model *m, const struct report_html_metrics *hm,
			const uint64_t *base_total)
{
	fputs("\"metrics\":[", out);
	for (int i = 0; i < hm->n; i++) {
		const struct model_metric_info *mi = model_metric_info(hm->m[i]);
		bool bytes = strstr(mi->name, "bytes") || hm->m[i] == MODEL_HEAP_LEAK;
		uint64_t div = mi->is_time ? 1000 : 1;
		fprintf(out, "%s{\"name\":\"%s\",\"title\":", i ? "," : "", mi->name);
		report_json_string(out, mi->title);
		fprintf(out, ",\"unit\":\"%s\",\"total\":%llu", mi->is_time ? "s" : bytes ? "B" : "",
			(unsigned long long)((m->total[hm->m[i]] - (base_total ? base_total[hm->m[i]] : 0)) / div));
		if (base_total)
			fprintf(out, ",\"totalA\":%llu", (unsigned long long)(base_total[hm->m[i]] / div));
		/* Its shares carry a sampling error (report_share_error), which
		 * the page computes from the samples metric of the same node. */
		if (mi->kind == MODEL_KIND_SAMPLED)
			fputs(",\"sampled\":1", out);
		fputc('}', out);
	}
	fputs("],\n", out);
}

/* A report view rendered as JSON into a string (caller frees), or NULL. */
static char *doc_of(void (*view)(struct report_doc *, const void *), const void *arg,
		    enum report_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	struct report_doc *d = report_doc_new(f, fmt);
	view(d, arg);
	report_doc_end(d);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct overview_arg {
	const struct model *m;
	const struct exp_experiment *exps;
	size_t nexps;
};

static void overview_view(struct report_doc *d, const void *arg)
{
	const struct overview_arg *a = arg;

	report_overview(d, a->m, a->exps, a->nexps);
}

static const struct model_func_metrics *sort_fm;
static enum model_metric sort_metric;

static int cmp_hot(const void *a, const void *b)
{
	uint64_t x = sort_fm[*(const uint32_t *)a].excl[sort_metric];
	uint64_t y = sort_fm[*(const uint32_t *)b].excl[sort_metric];

	return x > y ? -1 : x < y;
}

/* A source file of hot functions: annotated once (annotate shows the whole
 * file), named by them, hottest first. */
struct hot_file {
	const char *object, *file;
	uint32_t func;             /* the hottest */
	char names[1024];          /* "FILE: f, g, ..." */
};

/* Is a Java method's source (`rel`, "pkg/Class.java") at hand?  The JDK's
 * own classes have line tables but seldom their sources. */
static bool java_source_found(const char *rel)
{
	struct report_source src;
	bool found = report_source_open_java(rel, NULL, &src);

	if (found)
		report_source_free(&src);
	return found;
}

/* `"source":[{"name":..., "doc":{...annotate's JSON...}}...]` for the source
 * files of the hottest functions by the first metric, each file once (a
 * Java method's lines once per method). */
static void sources_out(FILE *out, const struct model *m, const struct report_html_metrics *hm)
{
	struct model_func_metrics *fm = calloc(m->nfuncs, sizeof(*fm));
	uint32_t *order = malloc(m->nfuncs * sizeof(*order));
	struct hot_file *files = calloc(HOT_SOURCES, sizeof(*files));
	size_t n = 0, nfiles = 0, shown = 0;
	struct report_opts o = { .fmt = REPORT_JSON, .nmetrics = hm->n };

	fputs("\"source\":[", out);
	if (!fm || !order || !files || !hm->n || model_func_metrics(m, fm))
		goto out;
	memcpy(o.metrics, hm->m, sizeof(hm->m[0]) * (size_t)hm->n);
	for (uint32_t i = 1; i < m->nfuncs; i++)
		if (fm[i].excl[hm->m[0]] && !(m->funcs[i].flags & (MODEL_FUNC_ARTIFICIAL | SYM_FUNC_STATIC | SYM_FUNC_PLT)))
			order[n++] = i;
	sort_fm = fm;
	sort_metric = hm->m[0];
	qsort(order, n, sizeof(*order), cmp_hot);
	for (size_t i = 0; i < n && i < HOT_SOURCES; i++) {
		const struct model_func *fn = &m->funcs[order[i]];
		const char *file = report_func_source(m, order[i]);
		size_t k = 0;
		if (!file || ((fn->flags & MODEL_FUNC_JAVA) && !java_source_found(file)))
			continue;
		/* A Java method's annotation is its own lines, not its file's. */
		while (k < nfiles && ((fn->flags & MODEL_FUNC_JAVA) || strcmp(files[k].object, fn->path) ||
				      strcmp(files[k].file, file)))
			k++;
		if (k == nfiles) {
			files[nfiles++] = (struct hot_file){ fn->path, file, order[i], "" };
			snprintf(files[k].names, sizeof(files[k].names), "%s: %s", file, fn->name);
		} else {
			size_t len = strlen(files[k].names);
			snprintf(files[k].names + len, sizeof(files[k].names) - len, ", %s", fn->name);
		}
	}
	for (size_t k = 0; k < nfiles; k++) {
		char *buf = NULL, err[512];
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (!f)
			break;
		struct report_doc *d = report_doc_new(f, REPORT_JSON);
		int rc = d ? report_annotate(d, m, &o, m->funcs[files[k].func].name, false, err, sizeof(err)) : -1;
		if (d)
			report_doc_end(d);
		if (fclose(f) == 0 && rc == 0 && len < MAX_SOURCE_BYTES && strstr(buf, "\"source\"")) {
			fputs(shown++ ? ",\n{\"name\":" : "\n{\"name\":", out);
			report_json_string(out, files[k].names);
			fprintf(out, ",\"doc\":%s}", buf);
		}
		free(buf);
	}
out:
	fputs("],\n", out);
	free(fm);
	free(order);
	free(files);
}

static void data_objects_view(struct report_doc *d, const void *arg)
{
	struct report_opts o = { .fmt = REPORT_JSON };

	report_data_clock(d, arg, &o);
}

static void data_precise_view(struct report_doc *d, const void *arg)
{
	struct report_opts o = { .fmt = REPORT_JSON };

	report_data_precise(d, arg, &o);
}

static void data_layout_view(struct report_doc *d, const void *arg)
{
	struct report_opts o = { .fmt = REPORT_JSON };

	report_data_layout(d, arg, &o);
}

/* With record --data: `"dataObjects":{...},"dataLayout":{...}` as
 * `tally report --data-objects` and `--data-layout` give them in JSON, and
 * the backtracking note; with precise samples, `"dataPrecise":{...}` (their
 * table with the levels served); nothing without (the page hides its tab). */
static void data_out(FILE *out, const struct model *m)
{
	char *prec = report_data_precise_objects(m) ? doc_of(data_precise_view, m, REPORT_JSON) : NULL;
	if (prec)
		fprintf(out, "\"dataPrecise\":%s,\n", prec);
	free(prec);
	if (!m->data_samples)
		return;
	char *objs = doc_of(data_objects_view, m, REPORT_JSON), *layout = doc_of(data_layout_view, m, REPORT_JSON);
	char note[256];

	if (objs)
		fprintf(out, "\"dataObjects\":%s,\n", objs);
	if (layout)
		fprintf(out, "\"dataLayout\":%s,\n", layout);
	snprintf(note, sizeof(note), "%llu of the %llu samples' addresses are a preceding instruction's (the nearest "
		 "memory instruction before the pc in its basic block).", (unsigned long long)m->data_backtracked,
		 (unsigned long long)m->data_samples);
	fputs("\"dataNote\":", out);
	report_json_string(out, note);
	fputs(",\n", out);
	free(objs);
	free(layout);
}

/* Write `text` up to the marker `mark`; returns what follows the marker. */
static const char *upto(FILE *out, const char *text, const char *mark)
{
	const char *at = strstr(text, mark);

	if (!at)
		at = text + strlen(text);
	fwrite(text, 1, (size_t)(at - text), out);
	return *at ? at + strlen(mark) : at;
}

int report_html(FILE *out, const struct model *m, const struct exp_experiment *exps, size_t nexps,
		const struct report_html_opts *o)
{
	struct report_html_metrics hm = { .n = 0 };
	uint64_t base_total[MODEL_METRIC_COUNT] = { 0 };
	struct overview_arg oa = { m, exps, nexps };

	for (int k = 0; k < MODEL_METRIC_COUNT; k++)
		if (m->present & (1u << k))
			hm.m[hm.n++] = (enum model_metric)k;
	if (!hm.n)
		hm.m[hm.n++] = MODEL_CPU;
	if (o->base_nexps)
		for (size_t i = 0; i < m->nentries; i++) {
			const struct model_entry *e = &m->entries[i];
			if (e->proc < m->nprocs && (size_t)(m->procs[e->proc].exp - exps) < o->base_nexps)
				for (int k = 0; k < MODEL_METRIC_COUNT; k++)
					base_total[k] += model_entry_value(e, k);
		}

	/* The data is built whole, then packed into the page (report_html_pack.c). */
	char *data = NULL;
	size_t data_len = 0;
	FILE *page_out = out;
	if (!(out = open_memstream(&data, &data_len)))
		return -1;
	fputs("{\"version\":1,\"title\":", out);
	report_json_string(out, o->title);
	if (o->base_nexps) {
		fputs(",\"diff\":{\"a\":", out);
		report_json_string(out, exps[0].path);
		fputs(",\"b\":", out);
		report_json_string(out, exps[o->base_nexps < nexps ? o->base_nexps : 0].path);
		fprintf(out, ",\"normalised\":%s}", o->normalised ? "true" : "false");
	}
	fputs(",\n", out);
	metrics_out(out, m, &hm, o->base_nexps ? base_total : NULL);
	char *ov = doc_of(overview_view, &oa, REPORT_JSON);
	fprintf(out, "\"overview\":%s,\n", ov ? ov : "{}");
	free(ov);
	/* The page shows the overview as `tally report` prints it: titles and
	 * values with their units, not the JSON's keys and raw numbers. */
	ov = doc_of(overview_view, &oa, REPORT_TEXT);
	fputs("\"overviewText\":", out);
	report_json_string(out, ov ? ov : "");
	fputs(",\n", out);
	free(ov);
	uint32_t *node_of_entry = malloc((m->nentries + 1) * sizeof(*node_of_entry));
	uint64_t t0, span;
	int rc = !node_of_entry || report_html_tree(out, m, &hm, o->base_nexps, exps, node_of_entry,
						    o->bin_errors && !o->base_nexps) ||
		 report_html_timeline(out, m, node_of_entry, &t0, &span) ||
		 (!o->base_nexps && report_html_slices(out, m, &hm, node_of_entry, t0, span)) ||
		 (!o->base_nexps && report_html_why(out, m, t0)) ? -1 : 0;
	free(node_of_entry);
	if (rc == 0) {
		sources_out(out, m, &hm);
		data_out(out, m);
		fputs("\"end\":true}", out);
	}
	if (fclose(out) != 0 || rc) {
		free(data);
		return -1;
	}
	out = page_out;
	const char *page = upto(out, report_html_page, "@CSS@");
	fputs(report_html_css, out);
	page = upto(out, page, "@DATA@");
	rc = report_html_pack(out, data, data_len);
	free(data);
	page = upto(out, page, "@JS@");
	fputs(report_html_js, out);
	fputs(page, out);
	return rc || ferror(out) ? -1 : 0;
}
