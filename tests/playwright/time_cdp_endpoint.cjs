// Times Playwright's `page.evaluate('1+1')` and
// `page.screenshot({type: 'jpeg', quality: 80})` on one tab through two
// endpoints of the same browser, interleaved round by round: cotab's
// (`cotab cdp-endpoint`, the token in a header) and the browser's own
// DevTools endpoint; and, when COTAB_PW_RELAY is set, on a second tab of
// the same page through the relay `@playwright/mcp --extension` starts
// with the Playwright Extension (loaded in the same browser). WARM rounds
// are not measured; ROUNDS are, printed as one JSON object {cotab:
// {evaluate, screenshot}, direct: {…}, relay: {…}} of milliseconds. Run
// by `cargo xtask bench browser`:
//   node time_cdp_endpoint.cjs COTAB_URL TOKEN DIRECT_URL TAB_URL WARM ROUNDS
// The relay's pieces come from the peer bench (`../shared/peers`, set up
// by its setup.sh): COTAB_PW_RELAY is its pwrelay.cjs, which hands out
// the relay class of @playwright/mcp's own playwright-core unchanged;
// COTAB_PW_OPENER the program the relay runs to show its connect page in
// the running browser (its profile COTAB_PW_PROFILE); COTAB_PW_TAB the
// second tab's url, which the connect page selects.
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

// The Playwright MCP bridge's relay, its connection allowed on its connect
// page for the tab at `tabUrl` (clicked through `direct`), and Playwright
// connected to it as @playwright/mcp connects.
async function relayPage(direct, tabUrl) {
  const { CDPRelayServer } = require(process.env.COTAB_PW_RELAY);
  const relay = new CDPRelayServer('chromium', process.env.COTAB_PW_OPENER, process.env.COTAB_PW_PROFILE, undefined);
  await relay.start();
  const connected = relay.establishExtensionConnection('cotab-bench');
  let failed = null;
  connected.catch((e) => { failed = e; });
  const uuid = relay.extensionEndpoint().split('/').pop();
  const context = direct.contexts()[0];
  for (let i = 0; ; i++) {
    if (failed) throw failed;
    if (i > 300) throw new Error('the relay\'s connect page did not show');
    const page = context.pages().find((p) => p.url().includes('/connect.html') && p.url().includes(uuid));
    const clicked = page && await page.evaluate((url) => {
      for (const item of document.querySelectorAll('.tab-item')) {
        const u = item.querySelector('.tab-url');
        if (u && u.textContent === url) { item.querySelector('button').click(); return true; }
      }
      return false;
    }, tabUrl).catch(() => false);
    if (clicked) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await connected;
  const browser = await chromium.connectOverCDP(relay.cdpEndpoint(), { isLocal: true, timeout: 0, noDefaults: true });
  return { browser, relay, page: await pageOf(browser, tabUrl) };
}

async function main() {
  const [cotabUrl, token, directUrl, tabUrl, warm, rounds] = process.argv.slice(2);
  const cotab = await chromium.connectOverCDP(cotabUrl, { headers: { Authorization: `Bearer ${token}` } });
  const direct = await chromium.connectOverCDP(directUrl);
  const ways = { cotab: await pageOf(cotab, tabUrl), direct: await pageOf(direct, tabUrl) };
  const out = { cotab: { evaluate: [], screenshot: [] }, direct: { evaluate: [], screenshot: [] } };
  const relay = process.env.COTAB_PW_RELAY ? await relayPage(direct, process.env.COTAB_PW_TAB) : null;
  if (relay) {
    ways.relay = relay.page;
    out.relay = { evaluate: [], screenshot: [] };
  }
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
  if (relay) {
    await relay.browser.close();
    relay.relay.stop();
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
