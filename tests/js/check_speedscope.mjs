// check_speedscope.mjs FILE — speedscope reads tally's export: the file is
// valid against the schema that ships with speedscope, and speedscope's own
// app (from its npm package, in headless Chromium) imports it without an
// error; prints, as JSON, the Total and Self of every function of the
// profile speedscope opens first (its sandwich view, in ms) and the summed
// weights of every profile.  A trace-event file (`export --format chrome`:
// {"traceEvents": [...]}) is opened the same way, by speedscope's importer
// of Chrome's format, a trace viewer in a real browser, and so is a file of
// collapsed stacks (`--format collapsed`, Brendan Gregg's format): no schema
// then, and no profiles' weights.
import Ajv from 'ajv';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { deadline, launch, serve } from './browser.mjs';

deadline(90000, 'check_speedscope');
const file = process.argv[2];
const require = createRequire(import.meta.url);
const release = path.dirname(require.resolve('speedscope/dist/release/index.html'));
const schema = JSON.parse(fs.readFileSync(path.join(release, 'file-format-schema.json'), 'utf8'));
const text = fs.readFileSync(file, 'utf8');
let data = null;
try { data = JSON.parse(text); } catch { /* collapsed stacks: text */ }
const trace = !data || Array.isArray(data.traceEvents);
const ajv = new Ajv({ allErrors: true, strict: false });
if (!trace && !ajv.validate(schema, data)) {
  console.error('schema:', ajv.errorsText(ajv.errors).slice(0, 2000));
  process.exit(1);
}
const weights = trace ? [] : data.profiles.map((p) => ({ name: p.name, unit: p.unit,
  total: p.weights.reduce((a, b) => a + b, 0) }));

const srv = await serve(release, { '/profile.json': path.resolve(file) });
const browser = await launch();
const errors = [];
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`${srv.url}/index.html#profileURL=${encodeURIComponent(srv.url + '/profile.json')}`);
  await page.getByText('Sandwich').click({ timeout: 20000 });
  await page.getByText('Symbol Name').waitFor({ timeout: 20000 });
  const text = await page.evaluate(() => document.body.innerText);
  // rows: "TOTAL (PCT%)\n\tSELF (PCT%)\n\tNAME"
  const rows = {};
  // (collapsed stacks have no unit: speedscope shows their weights, tally's ns, as plain numbers)
  const re = /([\d.,]+)(ns|µs|us|ms|s|min)? \([^)]*\)\n\t([\d.,]+)(ns|µs|us|ms|s|min)? \([^)]*\)\n\t([^\n]+)/g;
  const ms = { ns: 1e-6, 'µs': 1e-3, us: 1e-3, ms: 1, s: 1e3, min: 6e4, undefined: data ? NaN : 1e-6 };
  const num = (v) => +v.replace(/,/g, '');
  for (const m of text.matchAll(re))
    rows[m[5]] = { total_ms: num(m[1]) * ms[m[2]], self_ms: num(m[3]) * ms[m[4]] };
  if (errors.length) throw new Error('speedscope: ' + errors.join('; '));
  if (!Object.keys(rows).length) throw new Error('no rows in the sandwich view:\n' + text.slice(0, 500));
  console.log(JSON.stringify({ title: await page.title(), functions: rows, profiles: weights }));
} finally {
  await browser.close();
  srv.close();
}
