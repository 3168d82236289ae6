/* SPDX-License-Identifier: MIT
 *
 * report_units.c — numbers in human units (see report_units.h).
 */
#include <math.h>
#include <stdio.h>

#include "report/report_units.h"

/* v (>= 1) with 3 significant digits (or its integer part, from 100),
 * then the unit. */
static void three_digits(char *buf, size_t len, const char *sign, double v, const char *unit)
{
	if (v >= 99.95)
		snprintf(buf, len, "%s%.0f%s", sign, v, unit);
	else if (v >= 9.995)
		snprintf(buf, len, "%s%.1f%s", sign, v, unit);
	else
		snprintf(buf, len, "%s%.2f%s", sign, v, unit);
}

void report_units_time(char *buf, size_t len, double ns)
{
	static const struct { double scale; const char *unit; } units[] = {
		{ 1e9, " s" }, { 1e6, " ms" }, { 1e3, " us" },
	};
	const char *sign = ns < 0 ? "-" : "";
	double a = fabs(ns);

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (a >= units[i].scale * 0.9995) {
			three_digits(buf, len, sign, a / units[i].scale, units[i].unit);
			return;
		}
	if (a < 0.5)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%s%.0f ns", sign, a);
}

void report_units_count(char *buf, size_t len, double v)
{
	static const char suffix[] = "KMGT";
	const char *sign = v < 0 ? "-" : "";
	double a = fabs(v), scale = 1e3;
	int i = 0;

	if (a < 9999.5) {
		snprintf(buf, len, "%s%.0f", sign, a);
		return;
	}
	while (i < 3 && a >= scale * 999.5) {
		scale *= 1e3;
		i++;
	}
	char unit[2] = { suffix[i], 0 };
	three_digits(buf, len, sign, a / scale, unit);
}
