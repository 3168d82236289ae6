// check_why.mjs PAGE SCREENSHOT WAITER — tally's HTML report of a run
// recorded with -s, in headless Chromium from file://, offline: the Blame
// tab draws the waiters' flame graph, a click on the leaf of the waiting
// stack whose leaf is WAITER opens the holders' stacks below it; the
// Timeline draws the critical path over the threads' tracks.  Prints, as
// JSON, what it saw; exits 1 on a console or page error.
import { checkReport } from './browser.mjs';

const [page_path, shot, waiter] = process.argv.slice(2);
await checkReport('check_why', page_path, async (page, result) => {
  result.blame_tab = await page.evaluate(() => getComputedStyle(document.getElementById('nav-blame')).display !== 'none');
  if (result.blame_tab) {
    await page.click('nav button[data-view="blame"]');
    result.leaves = await page.evaluate(() => window.tally.blameLeaves);
    result.frames = await page.evaluate(() => document.querySelectorAll('#blame-flame div').length);
    const leaf = `#blame-flame div.leaf[data-name="${waiter}"]`;
    result.leaf_found = await page.evaluate((sel) => !!document.querySelector(sel), leaf);
    if (result.leaf_found) {
      await page.click(leaf);
      await page.waitForFunction(() => (window.tally.holdersShown || []).length > 0, null, { timeout: 10000 });
      result.holders = await page.evaluate(() => window.tally.holdersShown);
      result.holders_text = await page.evaluate(() => document.getElementById('blame-holders').innerText);
      await page.screenshot({ path: shot.replace(/\.png$/, '-blame.png') });
    }
  }
  await page.click('nav button[data-view="timeline"]');
  result.critical = await page.evaluate(() => window.tally.critical);
  result.legend = await page.evaluate(() => document.getElementById('timeline-legend').innerText);
  // the path's green, painted on the tracks
  result.green = await page.evaluate(() => {
    const c = document.getElementById('timeline');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] === 26 && d[i + 1] === 152 && d[i + 2] === 80) n++;
    return n;
  });
  await page.screenshot({ path: shot.replace(/\.png$/, '-timeline.png') });
});
