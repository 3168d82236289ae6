// check_gaps.mjs PAGE SCREENSHOT — the stretches a run recorded nothing
// (--delay, --duration, --toggle-signal, --control) on tally's HTML
// timeline in headless Chromium: the timeline's line names them, and the
// canvas is grey (hatched: r = g = b, opaque) in the middle of each gap on
// its process's first track, and not where the track has CPU (RGBA).  Prints, as
// JSON, what it saw; exits 1 on a console or page error.
import { checkReport } from './browser.mjs';

const [page_path, shot] = process.argv.slice(2);
const LABEL = 180, RIGHT = 8, TROW = 22;   // the timeline's geometry (report.js)
await checkReport('check_gaps', page_path, async (page, result) => {
  await page.click('nav button[data-view="timeline"]');
  result.info = await page.evaluate(() => document.getElementById('timeline-info').innerText);
  result.pixels = await page.evaluate(([LABEL, RIGHT, TROW]) => {
    const D = window.tally.data;
    const TL = D.timeline, c = document.getElementById('timeline');
    const dpr = window.devicePixelRatio || 1;
    const g = c.getContext('2d');
    const width = c.width / dpr, plot = width - LABEL - RIGHT;
    const img = g.getImageData(0, 0, c.width, c.height);   /* one readback */
    const at = (us, row) => {
      const x = Math.floor((LABEL + plot * us / TL.span_us) * dpr), y = Math.floor((row * TROW + 8) * dpr);
      const i = 4 * (y * c.width + x);
      return Array.from(img.data.slice(i, i + 4));
    };
    const out = [];
    for (const [gu, du, grp, why] of TL.gaps) {
      const row = TL.tracks.findIndex((t) => t.group === grp);
      out.push({ why, gap: at(gu + du / 2, row) });
    }
    const t = TL.tracks[0];
    const hot = t.cpu.indexOf(Math.max(...t.cpu));
    out.push({ why: 'cpu', gap: at((hot + 0.5) * TL.span_us / TL.bins, 0) });
    return out;
  }, [LABEL, RIGHT, TROW]);
  await page.screenshot({ path: shot });
});
