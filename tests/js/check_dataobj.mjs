// check_dataobj.mjs PAGE — the data objects tab of tally's HTML report
// (`tally record --data`) in headless Chromium, opened from file:// with
// the network off: the tab is there, draws with no console error, and
// prints, as JSON, its rows as a user reads them ([name, %] of each data
// object, members included) and the layout's structures; exits 1 on a
// console or page error.
import path from 'node:path';
import { deadline, launch, reportPage } from './browser.mjs';

deadline(90000, 'check_dataobj');
const [page_path] = process.argv.slice(2);
const browser = await launch();
const errors = [];
const result = {};
try {
  const page = await reportPage(browser, errors);
  await page.goto('file://' + path.resolve(page_path));
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
  result.tab_shown = await page.evaluate(() => {
    const b = document.querySelector('nav button[data-view="data"]');
    return !!b && b.style.display !== 'none';
  });
  if (result.tab_shown) {
    await page.click('nav button[data-view="data"]');
    result.rows = await page.evaluate(() => [...document.querySelectorAll('#dtable tbody tr')].map((tr) =>
      [tr.querySelector('td.name').innerText.trim(), tr.children[1].innerText.trim(), tr.classList.contains('member')]));
    result.layout = await page.evaluate(() => [...document.querySelectorAll('#ltable tbody tr')].map((tr) =>
      tr.querySelector('td.name').innerText.trim()));
    result.heads = await page.evaluate(() => [...document.querySelectorAll('#dtable th')].map((th) => th.innerText));
  }
} finally {
  await browser.close();
}
result.errors = errors;
console.log(JSON.stringify(result));
if (errors.length) process.exit(1);
