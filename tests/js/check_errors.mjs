// check_errors.mjs PAGE SCREENSHOT — the functions table of tally's HTML
// report in headless Chromium, from file://, offline: each row's shares
// with their errors as the page prints them, and the line under the table
// that says which estimate they are.  Prints, as JSON, {rows: {name:
// [excl cell, incl cell]}, note, errors}; exits 1 on a console or page
// error.
import { checkReport } from './browser.mjs';

const [page_path, shot] = process.argv.slice(2);
await checkReport('check_errors', page_path, async (page, result) => {
  await page.click('nav button[data-view="functions"]');
  result.rows = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#ftable tr.fn')].map((tr) => {
    const td = [...tr.querySelectorAll('td')].map((x) => x.innerText);
    return [tr.querySelector('td.name').innerText, [td[0], td[1]]];
  })));
  result.note = await page.evaluate(() => {
    const n = document.getElementById('ferr-note');
    return n ? n.innerText : '';
  });
  await page.screenshot({ path: shot });
});
