// check_state.mjs PAGE SCREENSHOT ZOOM SEARCH [STACKFN] — what issue 23 asked of
// tally's HTML page beyond drawing, in headless Chromium: the page's state
// in its address (a zoom, a search and a tab survive a reload; Back undoes
// a tab and a zoom without leaving the page), Esc resets the zoom, "/"
// focuses the search box, an invalid regular expression is said so; the
// timeline's legend, a click on a thread's name keeping that thread alone,
// the stack chart (a thread's stacks over time; a click on a frame zooms
// the flame graph on it), the command line on the tracks; a page of
// several processes of one program merging them.  ZOOM is a function to
// zoom on, SEARCH one to search, STACKFN (main) one to click in the last
// thread's stack chart.  Prints what it saw as JSON; exits 1 on a console
// or page error.
import path from 'node:path';
import { deadline, launch, reportPage, whenReady } from './browser.mjs';

deadline(120000, 'check_state');
const [page_path, shot, zoom, search, stackfn = 'main'] = process.argv.slice(2);
const browser = await launch();
const errors = [];
const r = {};
try {
  const page = await reportPage(browser, errors);
  const url = 'file://' + path.resolve(page_path);
  await page.goto(url);
  await whenReady(page);
  r.title = await page.evaluate(() => document.getElementById('title').innerText);
  const info = () => page.evaluate(() => document.getElementById('flame-info').innerText);
  // a zoom, then a search, then the functions tab: each in the address
  const at = await page.evaluate((n) => window.tally.frameRect(n), zoom);
  await page.mouse.click(at.x + Math.min(5, at.w / 2), at.y + at.h / 2);
  await page.waitForFunction((n) => window.tally.zoomName === n, zoom, { timeout: 10000 });
  r.hash_zoomed = await page.evaluate(() => location.hash);
  await page.fill('#search', search);
  await page.waitForFunction(() => window.tally.matched > 0, null, { timeout: 10000 }).catch(() => {});
  await page.click('nav button[data-view="functions"]');
  r.hash_all = await page.evaluate(() => location.hash);
  // reload: the same tab, search and zoom
  await page.reload();
  await whenReady(page);
  r.reload = await page.evaluate(() => ({
    view: document.querySelector('nav button.on').dataset.view,
    search: document.getElementById('search').value,
    zoomName: window.tally.zoomName,
  }));
  // Back: the flame graph again, still zoomed, on the same page
  await page.goBack();
  await page.waitForFunction(() => document.querySelector('nav button.on').dataset.view === 'flame', null, { timeout: 10000 }).catch(() => {});
  r.back1 = await page.evaluate(() => ({ url: location.href.split('#')[0], view: document.querySelector('nav button.on').dataset.view,
    zoomName: window.tally.zoomName }));
  r.back1.same_page = r.back1.url === url;
  // Esc resets the zoom (with the focus out of the search box)
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.tally.zoomName === '', null, { timeout: 10000 }).catch(() => {});
  r.after_esc = await page.evaluate(() => window.tally.zoomName);
  r.info_after_esc = await info();
  // "/" focuses the search box
  await page.keyboard.press('/');
  r.slash_focus = await page.evaluate(() => document.activeElement && document.activeElement.id);
  // an invalid regular expression: said beside the box
  await page.fill('#search', 'leaf_(');
  await page.waitForFunction(() => !!window.tally.searchError, null, { timeout: 10000 }).catch(() => {});
  r.bad_regex_note = await page.evaluate(() => document.getElementById('search-note').innerText);
  r.bad_regex_visible = await page.evaluate(() => getComputedStyle(document.getElementById('search-note')).display !== 'none');
  await page.fill('#search', '');
  await page.waitForFunction(() => !window.tally.searchError, null, { timeout: 10000 }).catch(() => {});
  r.good_regex_note = await page.evaluate(() => document.getElementById('search-note').innerText);
  // the timeline: legend, command lines, the stack chart, one thread kept
  await page.click('nav button[data-view="timeline"]');
  r.legend = await page.evaluate(() => document.getElementById('timeline-legend').innerText);
  r.track_labels = await page.evaluate(() => window.tally.trackLabels);
  r.tracks_all = await page.evaluate(() => window.tally.tracksShown);
  r.stack_all = await page.evaluate(() => window.tally.stackChart);
  r.stack_painted = await page.evaluate(() => {
    const c = document.getElementById('stackchart');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] && (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250)) n++;
    return n;
  });
  const k = r.tracks_all - 1;              // keep the last track
  const tl = await page.evaluate(() => { const q = document.getElementById('timeline').getBoundingClientRect(); return { x: q.left, y: q.top }; });
  await page.mouse.click(tl.x + 20, tl.y + k * 22 + 11);
  await page.waitForFunction(() => window.tally.tracksShown === 1, null, { timeout: 10000 }).catch(() => {});
  r.tracks_kept = await page.evaluate(() => window.tally.tracksShown);
  r.stack_kept = await page.evaluate(() => window.tally.stackChart);
  r.kept_hash = await page.evaluate(() => location.hash);
  r.kept_info = await page.evaluate(() => document.getElementById('timeline-info').innerText);
  await page.screenshot({ path: shot, fullPage: true });
  // a click on a stack-chart frame: the flame graph zoomed on it
  const sr = await page.evaluate((n) => window.tally.stackRect(n), stackfn);
  r.stack_click = null;
  if (sr) {
    await page.mouse.click(sr.x + sr.w / 2, sr.y + sr.h / 2);
    await page.waitForFunction(() => document.querySelector('nav button.on').dataset.view === 'flame', null, { timeout: 10000 }).catch(() => {});
    r.stack_click = await page.evaluate(() => ({ view: document.querySelector('nav button.on').dataset.view, zoomName: window.tally.zoomName }));
    await page.goBack();
    await page.waitForFunction(() => document.querySelector('nav button.on').dataset.view === 'timeline', null, { timeout: 10000 }).catch(() => {});
  }
  await page.click('#all-threads');
  r.tracks_again = await page.evaluate(() => window.tally.tracksShown);
  // processes of one program merged (a page of several processes)
  await page.click('nav button[data-view="flame"]');
  r.mergeable = await page.evaluate(() => window.tally.mergeable);
  if (r.mergeable) {
    const top = () => page.evaluate(() => window.tally.topFrames());
    r.top_before = await top();
    await page.check('#merge-procs');
    await page.waitForFunction(() => location.hash.includes('mp=1'), null, { timeout: 10000 }).catch(() => {});
    r.top_merged = await top();
    r.merged_hash = await page.evaluate(() => location.hash);
    await page.screenshot({ path: shot.replace(/\.png$/, '-merged.png') });
  }
} finally {
  await browser.close();
}
r.errors = errors;
console.log(JSON.stringify(r));
process.exit(errors.length ? 1 : 0);
