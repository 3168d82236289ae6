// time_html.mjs PAGE ROUNDS — how long tally's HTML report takes to show
// its flame graph in headless Chromium: for each of ROUNDS fresh pages, the
// time from navigation start to the first flame graph drawn (the page's
// window.tally.readyMs: HTML parsed, data parsed, tree built, canvas
// painted).  Prints JSON {ms: [...], median_ms, drawn}.  Used by make bench.
import path from 'node:path';
import { deadline, launch } from './browser.mjs';

const [page_path, rounds = '5'] = process.argv.slice(2);
deadline(300000, 'time_html');
const browser = await launch();
const ms = [];
let drawn = 0;
const errors = [];
try {
  for (let i = 0; i < +rounds; i++) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, offline: true });
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto('file://' + path.resolve(page_path), { waitUntil: 'commit' });
    await page.waitForFunction(() => document.body && document.body.dataset.ready === '1', null, { timeout: 120000, polling: 50 });
    ms.push(await page.evaluate(() => window.tally.readyMs));
    drawn = await page.evaluate(() => window.tally.drawn);
    await context.close();
  }
} finally {
  await browser.close();
}
const sorted = [...ms].sort((a, b) => a - b);
console.log(JSON.stringify({ ms, median_ms: sorted[Math.floor(sorted.length / 2)], drawn, errors }));
process.exit(errors.length ? 1 : 0);
