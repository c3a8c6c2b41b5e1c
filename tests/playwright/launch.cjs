// The headless browser the scripts here run Playwright in: the machine's
// Chromium at `executablePath`, as root, no GPU.
'use strict';
const { chromium } = require('playwright-core');

module.exports = (executablePath) => chromium.launch({
  executablePath,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});
