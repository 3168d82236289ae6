// check_dataobj.mjs PAGE — the data objects tab of tally's HTML report
// (`tally record --data`) in headless Chromium, opened from file:// with
// the network off: the tab is there, draws with no console error, and
// prints, as JSON, its rows as a user reads them ([name, %] of each data
// object, members included), the layout's structures and the precise
// samples' table (its headings, and each row's cells); exits 1 on a
// console or page error.
import { checkReport } from './browser.mjs';

const [page_path] = process.argv.slice(2);
await checkReport('check_dataobj', page_path, async (page, result) => {
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
    result.precise_heads = await page.evaluate(() => [...document.querySelectorAll('#ptable th')].map((th) => th.innerText));
    result.precise = await page.evaluate(() => [...document.querySelectorAll('#ptable tbody tr')].map((tr) =>
      [...tr.children].map((td) => td.innerText.trim())));
  }
});
