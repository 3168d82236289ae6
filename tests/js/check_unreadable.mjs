// check_unreadable.mjs PAGE — a tally HTML page whose embedded data cannot
// be unpacked (damaged in transit, cut short) says so in the page, with the
// cause, instead of an empty or half-drawn report, and raises a page error
// (so tools see it too).  Prints {text, errors} as JSON.
import { deadline, launch, reportPage } from './browser.mjs';
import path from 'node:path';

deadline(60000, 'check_unreadable');
const [page_path] = process.argv.slice(2);
const browser = await launch();
const errors = [];
let text = '';
try {
  const page = await reportPage(browser, errors);
  await page.goto('file://' + path.resolve(page_path));
  await page.waitForFunction(() => /cannot be read/.test(document.querySelector('main').textContent), null, { timeout: 30000 });
  text = await page.evaluate(() => document.querySelector('main').textContent);
  await page.waitForTimeout(200);
} finally {
  await browser.close();
}
console.log(JSON.stringify({ text, errors }));
