/* SPDX-License-Identifier: MIT
 *
 * report_html_assets.S — the page, style and script of `tally html`
 * (src/report/html/), embedded in the tally binary at build time as
 * NUL-terminated strings, so the report needs no file beside the binary.
 */
	.section .rodata
	.globl report_html_page, report_html_css, report_html_js
report_html_page:
	.incbin "src/report/html/page.html"
	.byte 0
report_html_css:
	.incbin "src/report/html/report.css"
	.byte 0
report_html_js:
	.incbin "src/report/html/report.js"
	.byte 0
	.section .note.GNU-stack,"",@progbits
