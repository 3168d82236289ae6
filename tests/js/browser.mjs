// browser.mjs — what the consumer checks share: Debian's Chromium, headless,
// driven by playwright-core, and a static HTTP server on 127.0.0.1 for the
// pages that fetch their input (speedscope's #profileURL=).
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png' };

// Serve the files of `root`, plus `extra` ({'/name': file}); resolves to
// { url, close }.
export async function serve(root, extra = {}) {
  const srv = http.createServer((req, res) => {
    const u = decodeURIComponent(req.url.split(/[?#]/)[0]);
    const f = extra[u] || path.join(root, path.normalize(u).replace(/^(\.\.[/\\])+/, ''));
    fs.readFile(f, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'content-type': TYPES[path.extname(f)] || 'application/octet-stream' });
      res.end(data);
    });
  });
  await new Promise((ok) => srv.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${srv.address().port}`, close: () => srv.close() };
}

// A headless Chromium with a fresh profile and nothing that reaches out.
export async function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// Fail the process after `ms` whatever is pending (the tests' time bound).
export function deadline(ms, what) {
  setTimeout(() => { console.error(`${what}: timed out after ${ms / 1000} s`); process.exit(3); }, ms).unref();
}

// A page for one of tally's self-contained HTML reports: 1400x900, offline;
// page errors, console errors and warnings, and any request beyond file: and
// data: URLs are pushed to `errors`.
export async function reportPage(browser, errors) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, offline: true });
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push('page: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`); });
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) errors.push('request: ' + r.url()); });
  return page;
}

// Resolves once a report page says it has drawn (document.body.dataset.ready).
export function whenReady(page) {
  return page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
}

// A report page (reportPage's checks) on the HTML file `file`, ready.
export async function openReport(browser, errors, file) {
  const page = await reportPage(browser, errors);
  await page.goto('file://' + path.resolve(file));
  await whenReady(page);
  return page;
}

// The frame every check_NAME.mjs shares: a deadline, a browser, the report
// page `file` opened as openReport does, `body(page, result)` filling
// `result` with what the page shows; then `result.errors` (the page's),
// the result printed as JSON, and exit 1 on any page error.
export async function checkReport(what, file, body, ms = 90000) {
  deadline(ms, what);
  const browser = await launch();
  const errors = [];
  const result = {};
  try {
    const page = await openReport(browser, errors, file);
    await body(page, result);
  } finally {
    await browser.close();
  }
  result.errors = errors;
  console.log(JSON.stringify(result));
  process.exit(errors.length ? 1 : 0);
}
