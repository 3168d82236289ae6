/* SPDX-License-Identifier: MIT
 *
 * cli_metrics.c — the --metric help of the analysis commands, written from
 * the metric table (model_metrics.c) so that it lists every metric: those
 * of the clock first (cpu the default), then each recording option's;
 * and which error --errors gives a share.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_load.h"
#include "report/report.h"

/* Append `word` to buf (used so far: *n), starting a continuation line
 * ('\n') when the current one would pass `width` characters. */
static void add(char *buf, size_t len, size_t *n, size_t *col, const char *word, size_t width)
{
	size_t w = strlen(word);

	if (*col && *col + 1 + w > width) {
		*n += (size_t)snprintf(buf + *n, *n < len ? len - *n : 0, "\n");
		*col = 0;
	} else if (*col) {
		*n += (size_t)snprintf(buf + *n, *n < len ? len - *n : 0, " ");
		(*col)++;
	}
	*n += (size_t)snprintf(buf + *n, *n < len ? len - *n : 0, "%s", word);
	*col += w;
}

const char *cli_metrics_help(void)
{
	static char buf[1024];
	size_t n = 0, col = 0;
	const char *group = NULL;
	char word[64];

	if (buf[0])
		return buf;
	for (int k = 0; k < MODEL_COUNTER_0; k++) {
		const struct model_metric_info *mi = model_metric_info((enum model_metric)k);
		bool first = !group || strcmp(group, mi->record);
		bool last = k + 1 == MODEL_COUNTER_0 ||
			    strcmp(mi->record, model_metric_info((enum model_metric)(k + 1))->record);
		if (first && group)
			snprintf(word, sizeof(word), "%s: %s%s", mi->record, mi->name, last ? ";" : ",");
		else
			snprintf(word, sizeof(word), "%s%s%s", mi->name, k == MODEL_CPU ? " (default)" : "",
				 last ? ";" : ",");
		add(buf, sizeof(buf), &n, &col, word, 62);
		group = mi->record;
	}
	const struct model_metric_info *c = model_metric_info(MODEL_COUNTER_LAST);
	snprintf(word, sizeof(word), "%s:", c->record);
	add(buf, sizeof(buf), &n, &col, word, 62);
	add(buf, sizeof(buf), &n, &col, "the event's name (cycles, page-faults, ...)", 62);
	return buf;
}

int cli_errors_parse(const char *cmd, const char *val)
{
	if (!val || !strcmp(val, "samples"))
		return REPORT_ERRORS_SAMPLES;
	if (!strcmp(val, "bins"))
		return REPORT_ERRORS_BINS;
	cli_error(cmd, "--errors=%s: expected samples (from each row's sample count) or bins "
		  "(from each function's share in %d bins over time)", val, REPORT_BINS);
	return -1;
}
