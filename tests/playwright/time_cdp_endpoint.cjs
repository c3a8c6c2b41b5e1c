// Times Playwright's `page.evaluate('1+1')` and
// `page.screenshot({type: 'jpeg', quality: 80})` on one tab through two
// endpoints of the same browser, interleaved round by round: cotab's
// (`cotab cdp-endpoint`, the token in a header) and the browser's own
// DevTools endpoint. WARM rounds are not measured; ROUNDS are, printed as
// one JSON object {cotab: {evaluate, screenshot}, direct: {…}} of
// milliseconds. Run by `cargo xtask bench browser`:
//   node time_cdp_endpoint.cjs COTAB_URL TOKEN DIRECT_URL TAB_URL WARM ROUNDS
'use strict';
const { chromium } = require('playwright-core');

async function pageOf(browser, url) {
  for (let i = 0; i < 100; i++) {
    const p = browser.contexts().flatMap((c) => c.pages()).find((p) => p.url() === url);
    if (p) return p;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no page at ${url}`);
}

async function main() {
  const [cotabUrl, token, directUrl, tabUrl, warm, rounds] = process.argv.slice(2);
  const cotab = await chromium.connectOverCDP(cotabUrl, { headers: { Authorization: `Bearer ${token}` } });
  const direct = await chromium.connectOverCDP(directUrl);
  const ways = { cotab: await pageOf(cotab, tabUrl), direct: await pageOf(direct, tabUrl) };
  const out = { cotab: { evaluate: [], screenshot: [] }, direct: { evaluate: [], screenshot: [] } };
  const ops = {
    evaluate: async (p) => { if ((await p.evaluate('1+1')) !== 2) throw new Error('evaluate'); },
    screenshot: (p) => p.screenshot({ type: 'jpeg', quality: 80 }),
  };
  for (let i = 0; i < Number(warm) + Number(rounds); i++) {
    for (const [op, f] of Object.entries(ops)) {
      for (const [way, p] of Object.entries(ways)) {
        const start = performance.now();
        await f(p);
        if (i >= Number(warm)) out[way][op].push(performance.now() - start);
      }
    }
  }
  console.log(JSON.stringify(out));
  await cotab.close();
  await direct.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
