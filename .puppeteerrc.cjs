// Puppeteer must not download a browser (nothing but the npm and Debian registries is reachable):
// tests use Debian's /usr/bin/chromium, or CHROME_PATH.
module.exports = { skipDownload: true };
