// Records Playwright's aria snapshot (`page.ariaSnapshot({mode: 'ai'})`,
// what Playwright MCP's browser_snapshot shows) of each page given, into
// OUT/NAME.yml. Run by `cargo xtask record-outlines`:
//   node record.cjs CHROMIUM OUT NAME=URL...
'use strict';
const fs = require('fs');
const path = require('path');
const launch = require('./launch.cjs');

async function main() {
  const [executablePath, out, ...pages] = process.argv.slice(2);
  const browser = await launch(executablePath);
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    for (const spec of pages) {
      const [name, url] = spec.split(/=(.*)/s);
      await page.goto(url, { waitUntil: 'load' });
      const snapshot = await page.ariaSnapshot({ mode: 'ai' });
      fs.writeFileSync(path.join(out, `${name}.yml`), snapshot.trimEnd() + '\n');
      console.log(`${name}: ${url}`);
    }
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
