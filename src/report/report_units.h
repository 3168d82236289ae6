/* SPDX-License-Identifier: MIT
 *
 * report_units.h — numbers in human units for text tables (`--human`):
 * durations with the unit that keeps 3 significant digits (812 us, 45.6 ms,
 * 1.23 s), counts and bytes past 9,999 with K, M, G, T (thousands, millions,
 * ...: 12.3M).  CSV and JSON keep the exact values.
 */
#ifndef TALLY_REPORT_UNITS_H
#define TALLY_REPORT_UNITS_H

#include <stddef.h>

/* `ns` nanoseconds (may be negative or fractional) as "1.23 s", "45.6 ms",
 * "812 us", "40 ns"; 0 as "0". */
void report_units_time(char *buf, size_t len, double ns);
/* A count as itself below 10,000, else "12.3K", "4.56M", "7.89G", "1.2T". */
void report_units_count(char *buf, size_t len, double v);

#endif
