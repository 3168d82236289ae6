// check_curves.mjs PAGE SCREENSHOT — the process curves of tally's HTML
// timeline (record --process-samples) in headless Chromium: what the page
// says it drew (window.tally.curves: each process's scale and its live-heap
// peak's place), the colour at the peak's marker, and the hover text over
// the curves.  Prints, as JSON, what it saw; exits 1 on a console or page
// error.
import { checkReport } from './browser.mjs';

const [page_path, shot] = process.argv.slice(2);
await checkReport('check_curves', page_path, async (page, result) => {
  await page.click('nav button[data-view="timeline"]');
  result.curves = await page.evaluate(() => window.tally.curves);
  const c = result.curves[0];
  if (c && c.peakX !== undefined) {
    result.peak_pixel = await page.evaluate(([x, y]) => {
      const cv = document.getElementById('timeline');
      const dpr = window.devicePixelRatio || 1;
      return Array.from(cv.getContext('2d').getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data);
    }, [c.peakX, c.peakY]);
    const r = await page.evaluate(() => { const q = document.getElementById('timeline').getBoundingClientRect(); return { x: q.left, y: q.top }; });
    await page.mouse.move(r.x + c.peakX + 1, r.y + c.peakY);
    result.tip = await page.evaluate(() => { const t = document.getElementById('tip'); return t ? t.innerText : ''; });
  }
  await page.screenshot({ path: shot });
});
