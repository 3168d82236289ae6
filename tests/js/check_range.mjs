// check_range.mjs PAGE SCREENSHOT A B — a range of tally's HTML timeline in
// headless Chromium: a drag with the mouse across the first 40% of the
// tracks, then across the last 40%, each time the flame graph of that range
// (the width of the frames of functions A and B, the range's total); then
// "whole run" back.  Keeps a screenshot of the first range's flame graph.
// Prints, as JSON, what it saw; exits 1 on a console or page error.
import { checkReport } from './browser.mjs';

const [page_path, shot, a, b] = process.argv.slice(2);
const LABEL = 180, RIGHT = 8;          // the timeline's label column and margin (report.js)
await checkReport('check_range', page_path, async (page, result) => {
  const seen = async () => {
    await page.click('nav button[data-view="flame"]');
    const width = await page.evaluate(() => document.getElementById('flame').getBoundingClientRect().width);
    const w = async (n) => { const r = await page.evaluate((x) => window.tally.frameRect(x), n); return r ? r.w / width : 0; };
    return { a: await w(a), b: await w(b), total: await page.evaluate(() => window.tally.rangeTotal),
      us: await page.evaluate(() => window.tally.rangeUs),
      info: await page.evaluate(() => document.getElementById('flame-info').innerText) };
  };
  result.whole = await seen();
  const drag = async (from, to) => {
    await page.click('nav button[data-view="timeline"]');
    const r = await page.evaluate(() => { const q = document.getElementById('timeline').getBoundingClientRect(); return { x: q.left, y: q.top, w: q.width }; });
    const plot = r.w - LABEL - RIGHT;
    const y = r.y + 11;
    await page.mouse.move(r.x + LABEL + plot * from, y);
    await page.mouse.down();
    await page.mouse.move(r.x + LABEL + plot * to, y, { steps: 8 });
    await page.mouse.up();
    return page.evaluate(() => document.getElementById('timeline-info').innerText);
  };
  result.first_info = await drag(0.0, 0.4);
  result.first = await seen();
  await page.screenshot({ path: shot });
  result.last_info = await drag(0.6, 1.0);
  result.last = await seen();
  await page.click('#unrange');
  result.back = await seen();
});
