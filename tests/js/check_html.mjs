// check_html.mjs PAGE SCREENSHOT CLICK SEARCH — tally's HTML report in
// headless Chromium, opened from file:// with the network off: it loads
// with no console error, the flame graph renders, a click on the frame
// CLICK zooms on it, typing SEARCH highlights its frames, every other view
// draws (the functions table's cells kept as function_cells); keeps a screenshot.  Prints, as JSON, what it saw; exits 1 on a
// console or page error.
import path from 'node:path';
import { deadline, launch, reportPage, whenReady } from './browser.mjs';

deadline(90000, 'check_html');
const [page_path, shot, click, search] = process.argv.slice(2);
const browser = await launch();
const errors = [];
const result = {};
try {
  const page = await reportPage(browser, errors);
  const t0 = Date.now();
  await page.goto('file://' + path.resolve(page_path));
  await whenReady(page);
  result.load_ms = Date.now() - t0;
  result.drawn = await page.evaluate(() => window.tally.drawn);
  // the canvas has frames painted: count non-white pixels
  result.painted = await page.evaluate(() => {
    const c = document.getElementById('flame');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] && (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250)) n++;
    return n;
  });
  await page.fill('#search', search);
  await page.waitForFunction(() => window.tally.matched > 0, null, { timeout: 10000 }).catch(() => {});
  result.matched = await page.evaluate(() => window.tally.matched);
  result.search_info = await page.evaluate(() => document.getElementById('flame-info').innerText);
  await page.screenshot({ path: shot });
  await page.fill('#search', '');
  await page.waitForFunction(() => window.tally.matched === 0, null, { timeout: 10000 });
  const before = await page.evaluate((n) => window.tally.frameRect(n), click);
  result.before = before;
  result.width = await page.evaluate(() => document.getElementById('flame').getBoundingClientRect().width);
  if (before) {
    await page.mouse.click(before.x + Math.min(5, before.w / 2), before.y + before.h / 2);
    await page.waitForFunction((n) => window.tally.zoomName === n, click, { timeout: 10000 });
    result.zoomName = await page.evaluate(() => window.tally.zoomName);
    result.after = await page.evaluate((n) => window.tally.frameRect(n), click);
    result.info = await page.evaluate(() => document.getElementById('flame-info').innerText);
    await page.screenshot({ path: shot.replace(/\.png$/, '-zoomed.png') });
  }
  result.views = {};
  for (const v of ['inverted', 'functions', 'timeline', 'source', 'overview']) {
    await page.click(`nav button[data-view="${v}"]`);
    result.views[v] = await page.evaluate((view) => {
      const s = [...document.querySelectorAll('main section')].find((x) => x.dataset.views.split(' ').includes(view));
      return s.innerText.length + (s.querySelector('canvas') ? s.querySelector('canvas').width : 0);
    }, v);
  }
  // the overview and source tabs as a user reads them: titles, not JSON keys
  result.overview_text = await page.evaluate(() => document.getElementById('overview-body').innerText);
  result.source_heads = await page.evaluate(() => [...document.querySelectorAll('#source-body table.src th')].map((th) => th.innerText));
  result.function_rows = await page.evaluate(() => document.querySelectorAll('#ftable tr.fn').length);
  result.function_cells = await page.evaluate(() =>
    [...document.querySelectorAll('#ftable tr.fn td')].map((td) => td.innerText));
  await page.click('nav button[data-view="functions"]');
  await page.screenshot({ path: shot.replace(/\.png$/, '-functions.png') });
  await page.click('nav button[data-view="timeline"]');
  await page.screenshot({ path: shot.replace(/\.png$/, '-timeline.png') });
  // the functions table under a search: the rows it hid are no "more rows"
  await page.click('nav button[data-view="functions"]');
  await page.fill('#search', search);
  await page.waitForFunction(() => window.tally.matched > 0, null, { timeout: 10000 }).catch(() => {});
  result.search_rows = await page.evaluate(() => document.querySelectorAll('#ftable tr.fn').length);
  result.search_note = await page.evaluate(() => {
    const n = document.querySelector('#functions-table p.note');
    return n ? n.innerText : '';
  });
  await page.fill('#search', '');
} finally {
  await browser.close();
}
result.errors = errors;
console.log(JSON.stringify(result));
process.exit(errors.length ? 1 : 0);
