// Figure 8 (design.md §10): the browser observe round trip, host → extension → tab → host, 1,000
// reads of one element in a real Chromium (Debian's, headless) with the built extension. Printed
// beside the same path without the tab read (`tabs`: daemon → bridge → extension → bridge →
// daemon) and the daemon's HTTP alone (/healthz), all measured in this run through the REST API.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer from "puppeteer";
import { BIN, Daemon, quantile, ROOT, summary, waitUntil } from "./lib.js";

const N = Number(process.env.BENCH_OBSERVE_N ?? 1000);

function chromium() {
  const path = process.env.CHROME_PATH ?? ["/usr/bin/chromium", "/usr/bin/google-chrome"].find((p) => existsSync(p));
  if (!path) throw new Error("needs Chromium: apt-get install chromium, or set CHROME_PATH");
  return path;
}

async function timed(n, call) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await call();
    times.push(performance.now() - start);
  }
  return times;
}

export async function run() {
  const site = createServer((_, res) =>
    res
      .writeHead(200, { "content-type": "text/html" })
      .end('<!doctype html><title>CI</title><div data-testid="run-status">Running</div>'),
  );
  await new Promise((resolve) => site.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${site.address().port}/ci/run/42`;
  const daemon = await new Daemon().start();
  const profile = mkdtempSync(join(tmpdir(), "vigil-bench-chromium-"));
  execFileSync(process.execPath, [
    BIN,
    "--home",
    daemon.home,
    "install",
    "--browser",
    "chromium",
    "--user-data-dir",
    profile,
  ]);
  const browser = await puppeteer.launch({
    executablePath: chromium(),
    headless: true,
    pipe: true,
    enableExtensions: true,
    userDataDir: profile,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"],
  });
  try {
    await browser.installExtension(join(ROOT, ".output", "chrome-mv3"));
    const page = await browser.newPage();
    await page.goto(url);
    await waitUntil(async () => (await daemon.api("GET", "/api/status")).body.browserConnected);
    const tabs = await waitUntil(async () => {
      const reply = await daemon.api("GET", "/api/browser/tabs");
      return reply.status === 200 && reply.body.some((t) => t.url === url) ? reply.body : null;
    });
    const tabId = tabs.find((t) => t.url === url).tabId;
    const body = { tabId, url, selector: '[data-testid="run-status"]' };
    const first = await daemon.api("POST", "/api/browser/observe", body);
    if (first.status !== 200) throw new Error(`observe answered ${first.status}: ${JSON.stringify(first.body)}`);
    // Warm up each path, then measure them interleaved in blocks so noise hits all alike.
    const results = { observe: [], tabs: [], http: [] };
    const calls = {
      observe: () => daemon.api("POST", "/api/browser/observe", body),
      tabs: () => daemon.api("GET", "/api/browser/tabs"),
      http: () => fetch(`${daemon.url}/healthz`).then((r) => r.text()),
    };
    for (const call of Object.values(calls)) await timed(50, call);
    for (let block = 0; block < 10; block++) {
      for (const [name, call] of Object.entries(calls)) results[name].push(...(await timed(N / 10, call)));
    }
    const median = (name) => quantile(results[name], 0.5);
    console.log(`browser observe (REST → daemon → bridge → extension → tab → back): ${summary(results.observe)}`);
    console.log(`  same path without the tab read (tabs):                        ${summary(results.tabs)}`);
    console.log(`  the daemon's HTTP alone (/healthz):                           ${summary(results.http)}`);
    console.log(
      `  observe − tabs = the tab read itself: ${(median("observe") - median("tabs")).toFixed(2)} ms median; ` +
        `observe / HTTP alone: ${(median("observe") / median("http")).toFixed(1)}×`,
    );
  } finally {
    await browser.close();
    await daemon.dispose();
    rmSync(profile, { recursive: true, force: true });
    site.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
