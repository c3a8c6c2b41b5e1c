// Times Playwright's aria snapshot (`page.ariaSnapshot({mode: 'ai'})`,
// what Playwright MCP's browser_snapshot shows) of one page, for the row
// beside `page.snapshot` in `cargo xtask bench browser`: WARM rounds not
// measured, then ROUNDS measured, printed as one JSON array of
// milliseconds. Run by the bench:
//   node time_snapshots.cjs CHROMIUM URL WARM ROUNDS
'use strict';
const launch = require('./launch.cjs');

async function main() {
  const [executablePath, url, warm, rounds] = process.argv.slice(2);
  const browser = await launch(executablePath);
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(url, { waitUntil: 'load' });
    const times = [];
    for (let i = 0; i < Number(warm) + Number(rounds); i++) {
      const start = performance.now();
      await page.ariaSnapshot({ mode: 'ai' });
      if (i >= Number(warm)) times.push(performance.now() - start);
    }
    console.log(JSON.stringify(times));
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
