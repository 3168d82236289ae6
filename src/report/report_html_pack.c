/* SPDX-License-Identifier: MIT
 *
 * report_html_pack.c — the page's data as `tally html` embeds it: the JSON
 * object report_html.c builds, gzip-compressed and base64-encoded, which
 * the page unpacks with the browser's DecompressionStream (report.js,
 * pageData).  Called once per page, after the whole object is built.
 *
 * Why: the JSON of a deep call tree is mostly digits (150,000 nodes'
 * functions, depths and values); a 2 M-sample page of the call-heavy bench
 * workload held 1.87 MB of it, 0.44 MB once gzipped (0.58 MB in base64),
 * and the browser parses the smaller page faster than it unpacks the data.
 * Level 6, zlib's default: on that page it costs ~0.1 s of CPU.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/report_html.h"

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* `len` bytes of `in` in base64 (with its '=' padding) to out. */
static void base64_out(FILE *out, const unsigned char *in, size_t len)
{
	char buf[4096];
	size_t n = 0;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		buf[n++] = B64[v >> 18 & 63];
		buf[n++] = B64[v >> 12 & 63];
		buf[n++] = i + 1 < len ? B64[v >> 6 & 63] : '=';
		buf[n++] = i + 2 < len ? B64[v & 63] : '=';
		if (n > sizeof(buf) - 4) {
			fwrite(buf, 1, n, out);
			n = 0;
		}
	}
	fwrite(buf, 1, n, out);
}

int report_html_pack(FILE *out, const char *json, size_t len)
{
	z_stream z = { 0 };

	if (len > UINT32_MAX / 2) {   /* zlib's counts are 32-bit */
		errno = EFBIG;
		return -1;
	}
	/* windowBits 15 + 16: a gzip stream (header and CRC), the format
	 * DecompressionStream('gzip') and every gzip tool read. */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	uLong cap = deflateBound(&z, (uLong)len) + 32;
	unsigned char *gz = malloc(cap);
	int rc = -1;

	if (gz) {
		z.next_in = (Bytef *)(uintptr_t)json;
		z.avail_in = (uInt)len;
		z.next_out = gz;
		z.avail_out = (uInt)cap;
		if (deflate(&z, Z_FINISH) == Z_STREAM_END) {
			base64_out(out, gz, z.total_out);
			rc = ferror(out) ? -1 : 0;
		} else {
			errno = EIO;
		}
	} else {
		errno = ENOMEM;
	}
	deflateEnd(&z);
	free(gz);
	return rc;
}
