# SPDX-License-Identifier: MIT
# tally_page.py — the data a `tally html` page embeds, for the tests'
# Python checks (tests/e2e/lib.sh puts this folder on PYTHONPATH):
# the <script id="tally-data"> element's text, gzip in base64
# (src/report/report_html_pack.c), or plain JSON where it says no encoding.
#
#   from tally_page import page_data      # page_data(open(p).read()) -> dict
#   python3 tally_page.py PAGE            # prints the page's JSON
import base64
import gzip
import json
import re
import sys

_DATA = re.compile(r'<script ([^>]*)id="tally-data"([^>]*)>(.*?)</script>', re.S)


def page_json(html):
    """The JSON text of the page's data (html: the page's text)."""
    m = _DATA.search(html)
    if not m:
        raise ValueError('no tally-data element in the page')
    attrs, text = m.group(1) + m.group(2), m.group(3)
    if 'data-encoding="gzip+base64"' in attrs:
        return gzip.decompress(base64.b64decode(text)).decode('utf-8')
    return text


def page_data(html):
    """The page's data as a dict."""
    return json.loads(page_json(html))


if __name__ == '__main__':
    with open(sys.argv[1], encoding='utf-8') as f:
        sys.stdout.write(page_json(f.read()) + '\n')
