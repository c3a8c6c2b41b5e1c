// Drives cotab's CDP endpoint with a real client, as a script of the
// person's would: `node cdp_endpoint.cjs playwright|puppeteer STEP…`.
// The endpoint and its token come in COTAB_CDP_ENDPOINT and
// COTAB_CDP_TOKEN; FIXTURE is the fixture server's origin. Each step
// prints one JSON line ({step, ok, value} or {step, ok: false, error}),
// so the end-to-end test sees what worked and what failed, and why.
'use strict';

const [client, ...steps] = process.argv.slice(2);
const endpoint = process.env.COTAB_CDP_ENDPOINT;
const token = process.env.COTAB_CDP_TOKEN;
const fixture = process.env.FIXTURE;
const headers = { Authorization: `Bearer ${token}` };

const say = (v) => process.stdout.write(JSON.stringify(v) + '\n');

async function connect() {
  // No client library: steps open their own sockets.
  if (client === 'raw') return { browser: null };
  if (client === 'playwright') {
    const { chromium } = require('playwright-core');
    const browser = await chromium.connectOverCDP(endpoint, { headers, timeout: 15000 });
    const context = browser.contexts()[0];
    return { browser, context, pages: () => context.pages(), newPage: () => context.newPage() };
  }
  const puppeteer = require('puppeteer-core');
  const version = await (await fetch(`${endpoint}/json/version`, { headers })).json();
  const browser = await puppeteer.connect({
    browserWSEndpoint: version.webSocketDebuggerUrl,
    headers,
    defaultViewport: null,
    protocolTimeout: 15000,
  });
  return { browser, pages: () => browser.pages(), newPage: () => browser.newPage() };
}

// A page whose url starts with the fixture's and has `path`.
async function pageAt(b, path) {
  const pages = await b.pages();
  const p = pages.find((p) => p.url().startsWith(fixture + path));
  if (!p) throw new Error(`no page at ${path}: ${pages.map((p) => p.url()).join(', ')}`);
  return p;
}

const STEPS = {
  // The shared tab is there, at the fixture's root.
  pages: async (b) => (await b.pages()).map((p) => p.url()),
  evaluate: async (b) => (await pageAt(b, '/')).evaluate(() => 6 * 7),
  click: async (b) => {
    const p = await pageAt(b, '/');
    await p.click('#btn');
    return p.evaluate(() => document.title);
  },
  fill: async (b) => {
    const p = await pageAt(b, '/');
    if (client === 'playwright') await p.fill('#name', 'Ada');
    else await p.type('#name', 'Ada');
    return p.evaluate(() => document.getElementById('name').value);
  },
  screenshot: async (b) => {
    const shot = await (await pageAt(b, '/')).screenshot();
    return { bytes: shot.length, png: shot.subarray(1, 4).toString() };
  },
  goto: async (b) => {
    const p = await pageAt(b, '/');
    await p.goto(`${fixture}/delayed`);
    return p.url();
  },
  waitForSelector: async (b) => {
    const p = await pageAt(b, '/delayed');
    const h = await p.waitForSelector('text=Ready now', { timeout: 10000 });
    return h ? 'found' : 'missing';
  },
  dialog: async (b) => {
    const p = await pageAt(b, '/delayed');
    await p.goto(`${fixture}/dialogs`);
    p.once('dialog', (d) => d.accept());
    await p.click('#confirm');
    return p.evaluate(() => document.getElementById('out').textContent);
  },
  // A link with a target opens a tab, which cotab shares: the client
  // gets it as the page's popup.
  popup: async (b) => {
    const p = await pageAt(b, '/second');
    await p.goto(`${fixture}/opener`);
    const [popup] = await Promise.all([
      client === 'playwright'
        ? p.waitForEvent('popup')
        : new Promise((resolve) => p.once('popup', resolve)),
      p.click('a[target=_blank]'),
    ]);
    await popup.waitForFunction(() => document.title === 'Second page');
    return popup.url();
  },
  // A form in a frame of another site (a process of its own) and a
  // dedicated worker: the client drives them through their own sessions.
  // A second client on the same page, not navigating, finds them too.
  checkout: async (b) => {
    const p = await pageAt(b, '/');
    if (!p.url().endsWith('/checkout')) await p.goto(`${fixture}/checkout`);
    let frame;
    if (client === 'playwright') {
      const form = p.frameLocator('#pay');
      await form.locator('#card').fill('4242');
      await form.locator('#submit').click();
      // The frame's url is Playwright's record of its commit, heard on
      // the frame's own session: the endpoint runs the held frame only
      // once the domains Playwright enabled before are on.
      frame = p.frames().find((f) => f.url().includes('//localhost:'));
      if (!frame) throw new Error(`frames: ${p.frames().map((f) => f.url()).join(', ')}`);
    } else {
      frame = await (await p.waitForSelector('#pay')).contentFrame();
      await frame.waitForSelector('#card');
      await frame.$eval('#card', (e) => { e.value = ''; });
      await frame.type('#card', '4242');
      await frame.click('#submit');
    }
    const worker = p.workers()[0] || await (client === 'playwright'
      ? p.waitForEvent('worker')
      : new Promise((resolve) => p.once('workercreated', resolve)));
    await p.waitForFunction(() => document.title === 'Paid');
    return {
      frame: frame.url().replace(/:\d+/, ''),
      card: await frame.evaluate(() => document.getElementById('card').value),
      pin: await frame.evaluate(() => document.getElementById('pin').value),
      button: await frame.evaluate(() => document.getElementById('submit').textContent),
      worker: await worker.evaluate(() => self.answer),
    };
  },
  newPage: async (b) => {
    const p = await b.newPage();
    await p.goto(`${fixture}/second`);
    return p.evaluate(() => document.title);
  },
  // Opens a page, then closes it, and the shared tab it attached too:
  // each close answers (within 10 s) and the pages are gone.
  closePages: async (b) => {
    const within = (what, p) => Promise.race([p, new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not return in 10 s`)), 10000))]);
    const p = await b.newPage();
    await p.goto(`${fixture}/second`);
    await within('closing the new page', p.close());
    // Through the page's own session (`Page.close`), as a script that
    // lets the page's beforeunload handlers run closes it.
    const q = await b.newPage();
    await q.goto(`${fixture}/second`);
    await within('closing a page after its beforeunload', q.close({ runBeforeUnload: true }));
    // The promise may answer before the tab goes.
    await within('the page to go', new Promise((resolve) => q.isClosed() ? resolve() : q.once('close', resolve)));
    const left = (await b.pages()).map((p) => p.url());
    await within('closing the shared tab', (await pageAt(b, '/')).close());
    return { left, after: (await b.pages()).map((p) => p.url()) };
  },
  // What a hostile script tries beyond the shared tabs, each refused
  // (its first line), and a second session of its own on the shared tab.
  probe: async (b) => {
    const out = {};
    const tryIt = async (name, f) => {
      try {
        await f();
        out[name] = 'allowed';
      } catch (e) {
        out[name] = String(e.message || e).split('\n')[0];
      }
    };
    const bs = await b.browser.newBrowserCDPSession();
    out.targets = (await bs.send('Target.getTargets')).targetInfos.map((t) => t.url);
    await tryIt('attachOther', () => bs.send('Target.attachToTarget', { targetId: process.env.PROBE_TARGET, flatten: true }));
    await tryIt('createChrome', () => bs.send('Target.createTarget', { url: 'chrome://settings' }));
    await tryIt('createFile', () => bs.send('Target.createTarget', { url: 'file:///etc/passwd' }));
    await tryIt('storage', () => bs.send('Storage.getCookies', {}));
    await tryIt('browserClose', () => bs.send('Browser.close'));
    await tryIt('newContext', () => bs.send('Target.createBrowserContext', {}));
    const p = await pageAt(b, '/');
    const ps = await b.context.newCDPSession(p);
    await tryIt('pageTarget', () => ps.send('Target.createTarget', { url: 'about:blank' }));
    await tryIt('pageNavigateChrome', () => ps.send('Page.navigate', { url: 'chrome://settings' }));
    await tryIt('pageScript', () => ps.send('Page.addScriptToEvaluateOnNewDocument', { source: 'window.x = 1' }));
    await tryIt('ignoreInput', () => ps.send('Input.setIgnoreInputEvents', { ignore: true }));
    out.second = (await ps.send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true })).result.value;
    await ps.detach();
    return out;
  },
  // A raw client that attaches, then sends and never reads: the endpoint
  // drops it rather than queue its answers without bound.
  flood: async () => {
    const WebSocket = require('ws');
    const version = await (await fetch(`${endpoint}/json/version`, { headers })).json();
    const ws = new WebSocket(version.webSocketDebuggerUrl, { headers });
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    const attached = new Promise((resolve) => ws.on('message', (m) => {
      const v = JSON.parse(m);
      if (v.method === 'Target.attachedToTarget') resolve(v.params.sessionId);
    }));
    ws.send(JSON.stringify({ id: 1, method: 'Target.setAutoAttach', params: { autoAttach: true, flatten: true, waitForDebuggerOnStart: false } }));
    const sessionId = await attached;
    ws._socket.pause();
    const frame = (id) => JSON.stringify({ id, method: 'Runtime.runIfWaitingForDebugger', sessionId });
    for (let i = 0; i < 100000; i++) ws.send(frame(10 + i));
    // A paused socket sees no end: it reads again once the endpoint had
    // time to give up, and then ends if the endpoint closed it. The
    // endpoint first reads the whole flood, which on a loaded machine
    // takes seconds of its own before its writes stall.
    await new Promise((resolve) => setTimeout(resolve, 15000));
    const closed = new Promise((resolve) => ws.once('close', () => resolve('dropped')));
    ws._socket.resume();
    return Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve('still open'), 30000))]);
  },
  // A raw client that asks for the page's new frames held until it runs
  // them, opens the checkout, and goes away with its form still held.
  holdFrames: async () => {
    const WebSocket = require('ws');
    const version = await (await fetch(`${endpoint}/json/version`, { headers })).json();
    const ws = new WebSocket(version.webSocketDebuggerUrl, { headers });
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    let id = 0;
    const send = (method, params, sessionId) => ws.send(JSON.stringify({ id: ++id, method, params, sessionId }));
    const event = (pred) => new Promise((resolve) => ws.on('message', (m) => {
      const v = JSON.parse(m);
      if (pred(v)) resolve(v);
    }));
    const page = event((v) => v.method === 'Target.attachedToTarget' && v.params.targetInfo.type === 'page');
    send('Target.setAutoAttach', { autoAttach: true, flatten: true, waitForDebuggerOnStart: false });
    const sessionId = (await page).params.sessionId;
    const held = event((v) => v.method === 'Target.attachedToTarget' && v.params.targetInfo.type === 'iframe');
    send('Target.setAutoAttach', { autoAttach: true, flatten: true, waitForDebuggerOnStart: true }, sessionId);
    send('Page.navigate', { url: `${fixture}/checkout` }, sessionId);
    const frame = (await held).params;
    say({ step: 'ready', waiting: frame.waitingForDebugger });
    await new Promise((resolve) => process.stdin.once('data', resolve));
    ws.terminate();
    return 'gone';
  },
  // Waits for a line on stdin (the test has taken control meanwhile),
  // then acts once more.
  afterTakeover: async (b) => {
    const p = await pageAt(b, '/');
    await p.evaluate(() => 1);
    say({ step: 'ready' });
    await new Promise((resolve) => process.stdin.once('data', resolve));
    await p.evaluate(() => 1);
    return 'acted';
  },
  // Holds a key and a mouse button on the input recorder, mid-drag, then
  // waits for a line on stdin (the test takes control, or not) and tries
  // to move the mouse once more; its release is left to cotab.
  holdInput: async (b) => {
    const p = await pageAt(b, '/input');
    await p.keyboard.down('q');
    await p.mouse.move(40, 40);
    await p.mouse.down();
    await p.mouse.move(120, 90);
    say({ step: 'ready' });
    await new Promise((resolve) => process.stdin.once('data', resolve));
    await p.mouse.move(150, 100);
    return 'moved';
  },
  // Until the endpoint closes the connection (developer mode off).
  untilDisconnected: async (b) => {
    const gone = new Promise((resolve) => b.browser.once('disconnected', resolve));
    say({ step: 'ready' });
    await gone;
    return 'disconnected';
  },
};

(async () => {
  let b;
  const t0 = Date.now();
  try {
    b = await connect();
  } catch (e) {
    say({ step: 'connect', ok: false, error: String(e.message || e) });
    process.exit(0);
  }
  say({ step: 'connect', ok: true, ms: Date.now() - t0 });
  for (const step of steps) {
    const t0 = Date.now();
    try {
      const value = await STEPS[step](b);
      say({ step, ok: true, value, ms: Date.now() - t0 });
    } catch (e) {
      say({ step, ok: false, error: String(e.message || e), ms: Date.now() - t0 });
    }
  }
  // Disconnects, leaving the person's browser and tabs as they are.
  const t1 = Date.now();
  if (client === 'playwright') await b.browser.close();
  else if (b.browser && b.browser.connected) await b.browser.disconnect();
  process.stderr.write(`closed in ${Date.now() - t1} ms\n`);
  process.exit(0);
})();
