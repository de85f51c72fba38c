// The browser side of `npm run bench:panel` (issue #26): the built extension's side panel page in a
// real Chromium (Debian's, headless; or CHROME_PATH), talking over native messaging to a real daemon
// with 1,000 monitors (50 sessions of 10 waitpoints and 10 time monitors), three figures:
//
// (a) first list painted: from the navigation to sidepanel.html to the first monitor rows in the
//     DOM (a MutationObserver set before the page's own script) and to the frame after them (two
//     requestAnimationFrames), beside the page's first contentful paint (its header, the fixed cost
//     of the page) — median of BENCH_PANEL_LOADS loads (goal: < 300 ms);
// (b) main-thread work per change: CDP Performance.getMetrics TaskDuration (all the panel
//     renderer's main-thread tasks: script, style, layout, paint) over windows with 5 changes a
//     second (progress signals to random waitpoints), minus the same over idle windows of the same
//     length, divided by the changes — median over BENCH_PANEL_WINDOWS pairs (goal: < 16 ms);
// (c) an open idle panel's CPU: the extension's renderer process (the panel page and the
//     background worker share it) from /proc over BENCH_PANEL_IDLE_SECONDS with no changes, from
//     BENCH_PANEL_QUIET_SECONDS (60) after the last one (so "12s ago" no longer ticks), beside
//     the same process before the panel was opened (the worker alone) and an about:blank tab's
//     renderer over the same seconds (goal: < 1 % of a core).
//
// A benchmark, not a test: it prints figures. `node bench/panel-browser.js` alone (after
// `npm run build`), or `run()` from bench/panel.js. BENCH_PANEL_BEFORE=<checkout>: also measures
// that checkout's built extension (.output/chrome-mv3) in the same run, for before/after figures.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import puppeteer from "puppeteer";
import { EXTENSION_ID } from "../dist/shared/extension-identity.js";
import { BIN, cpuSeconds, Daemon, fmt, inProcess, quantile, ROOT, sleep, waitUntil } from "./lib.js";

const SESSIONS = 50;
const PER_SESSION = 20; // half waitpoints, half time monitors: 1,000 monitors
const CHANGES_PER_SECOND = 5;
const LOADS = Number(process.env.BENCH_PANEL_LOADS ?? 10);
const WINDOWS = Number(process.env.BENCH_PANEL_WINDOWS ?? 4);
const WINDOW_SECONDS = Number(process.env.BENCH_PANEL_WINDOW_SECONDS ?? 10);
const IDLE_SECONDS = Number(process.env.BENCH_PANEL_IDLE_SECONDS ?? 30);
/** How long the panel is left alone after the last change before its idle CPU is read (its relative times then tick once a minute). */
const QUIET_SECONDS = Number(process.env.BENCH_PANEL_QUIET_SECONDS ?? 60);

function chromium() {
  const path =
    process.env.CHROME_PATH ??
    ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) => existsSync(p));
  if (!path) throw new Error("needs Chromium: apt-get install chromium, or set CHROME_PATH");
  return path;
}

/** Arms the monitors straight through the engine (the code the API runs), before the daemon starts; the waitpoints' ids. */
async function seed(home) {
  const { ensureHome } = await import(join(ROOT, "dist/native-host/src/base/home.js"));
  const { services, close } = await inProcess(ROOT, ensureHome(home).db);
  const { engine, waitpoints } = services;
  const far = new Date(Date.now() + 6 * 24 * 3_600_000).toISOString().replace(/\.\d+Z$/, "Z");
  const ids = [];
  for (let s = 0; s < SESSIONS; s++) {
    const sid = `team-${s}`;
    await engine.createSession({ id: sid, label: `Team ${s}` });
    for (let i = 0; i < PER_SESSION / 2; i++) {
      const wp = await waitpoints.create(sid, { label: `train-arm${s}-${i}`, intent: "compare the arms and report" });
      ids.push({ sid, id: wp.id });
      await engine.createMonitor(sid, {
        name: `Release window ${s}-${i}`,
        source: { kind: "time", at: far },
        timeoutSeconds: 7 * 24 * 3600,
      });
    }
  }
  await close();
  // Armed in-process, its sessions are the unregistered host's: the daemon about to start adopts
  // them (NULL: "made before hosts"), else their waitpoints' signals are refused as another host's.
  const db = new Database(ensureHome(home).db);
  db.prepare("UPDATE sessions SET host_id = NULL").run();
  db.prepare("UPDATE triggers SET host_id = NULL WHERE host_id IS NOT NULL").run();
  db.close();
  return ids;
}

/** 5 progress signals a second to random waitpoints until `stop()`; how many were sent. */
function changes(daemon, ids) {
  let running = true;
  let sent = 0;
  const done = (async () => {
    while (running) {
      const t0 = performance.now();
      const { id } = ids[Math.floor(Math.random() * ids.length)];
      const reply = await daemon.api("POST", `/api/waitpoints/${id}/signal`, { status: "progress", message: "step" });
      if (reply.status >= 300) throw new Error(`a signal answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      sent++;
      await sleep(Math.max(0, 1000 / CHANGES_PER_SECOND - (performance.now() - t0)));
    }
  })();
  return async () => {
    running = false;
    await done;
    return sent;
  };
}

/** Chromium's renderer processes under `root`, with their command lines. */
function renderers(root) {
  const table = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      // Chromium rewrites its title: the arguments are one string, space-separated.
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
      table.set(Number(entry), { ppid, cmdline });
    } catch {
      // Gone meanwhile.
    }
  }
  const under = (pid) => {
    for (let p = pid, hops = 0; p > 1 && hops < 10; hops++) {
      if (p === root) return true;
      p = table.get(p)?.ppid ?? 0;
    }
    return false;
  };
  return [...table]
    .filter(([pid, { cmdline }]) => cmdline.includes(" --type=renderer ") && under(pid))
    .map(([pid]) => pid);
}

/** The renderer process of `page`: the one whose CPU jumps while the page spins for 800 ms (tried up to 5 times on a busy machine). */
async function rendererOf(page, root) {
  let used = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const pids = renderers(root);
    const before = pids.map((pid) => cpuSeconds(pid));
    await page.evaluate("(() => { const end = performance.now() + 800; while (performance.now() < end); })()");
    used = pids.map((pid, i) => cpuSeconds(pid) - before[i]);
    const sorted = [...used].sort((a, b) => b - a);
    if (sorted[0] >= 0.1 && sorted[0] >= 3 * (sorted[1] ?? 0)) return pids[used.indexOf(sorted[0])];
  }
  throw new Error(`Expected one renderer to spend most of 0.8 s while the page spun, got ${used}`);
}

/** The CPU of each pid over `seconds`, in % of a core, in windows of `window` seconds: the median window and the whole. */
async function cpuOver(pids, seconds, window = 10) {
  const per = Object.fromEntries(Object.keys(pids).map((k) => [k, []]));
  const total = Object.fromEntries(Object.keys(pids).map((k) => [k, 0]));
  let elapsed = 0;
  while (elapsed < seconds) {
    const span = Math.min(window, seconds - elapsed);
    const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
    const t0 = performance.now();
    await sleep(span * 1000);
    const wall = (performance.now() - t0) / 1000;
    for (const [k, pid] of Object.entries(pids)) {
      const used = cpuSeconds(pid) - before[k];
      per[k].push((100 * used) / wall);
      total[k] += used;
    }
    elapsed += wall;
  }
  return Object.fromEntries(
    Object.keys(pids).map((k) => [k, { median: quantile(per[k], 0.5), whole: (100 * total[k]) / elapsed }]),
  );
}

const pct = (v) => `${v.toFixed(2)} %`;
const at = (ms) => (Number.isNaN(ms) ? "n/a (this build does not mark it)" : fmt(ms));

// Set before the panel's own script: when the first monitor rows are in the DOM, and the frame after.
const FIRST_ROWS = `(() => {
  const seen = () => {
    // When the row count last grew: the whole page is in (a build that draws a screenful first).
    const rows = document.getElementsByTagName("li").length;
    if (rows > (window.__rowsMost ?? 0)) { window.__rowsMost = rows; window.__wholeRows = performance.now(); }
    if (window.__firstRows !== undefined || !document.querySelector("li.monitor")) return;
    window.__firstRows = performance.now();
    window.__firstRowsCount = document.querySelectorAll("li.monitor").length;
    requestAnimationFrame(() => requestAnimationFrame(() => { window.__firstRowsFrame = performance.now(); }));
  };
  new MutationObserver(seen).observe(document, { childList: true, subtree: true });
})();`;

/** Measures one build of the extension (`extensionDir`) against `daemon`. */
async function measure(label, extensionDir, daemon, ids) {
  const load0 = loadavg()[0];
  const profile = mkdtempSync(join(tmpdir(), "vigil-bench-panel-"));
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
    const id = await browser.installExtension(extensionDir);
    if (id !== EXTENSION_ID) throw new Error(`Expected extension id ${EXTENSION_ID}, got ${id}`);
    const target = await browser.waitForTarget(
      (t) => t.type() === "service_worker" && t.url() === `chrome-extension://${EXTENSION_ID}/background.js`,
    );
    const worker = await target.worker();
    await waitUntil(() => worker.evaluate(() => globalThis.vigil?.host.state.status === "connected"), {
      timeoutMs: 60_000,
    });
    const root = browser.process().pid;
    // (c), first half: the worker alone (no panel open), and an about:blank tab, idle.
    const [blank] = await browser.pages();
    await blank.goto("about:blank");
    const blankPid = await rendererOf(blank, root);
    // The extension's process before any page of it is open: the background worker's.
    const workerPid = await rendererOf(worker, root);
    const workerAlone = await cpuOver({ extension: workerPid }, IDLE_SECONDS);

    // (a) first list painted, LOADS times.
    const panel = await browser.newPage();
    await panel.setViewport({ width: 400, height: 900 });
    await panel.evaluateOnNewDocument(FIRST_ROWS);
    const loads = { rows: [], frame: [], whole: [], fcp: [], asked: [], came: [], items: 0, first: 0 };
    for (let i = 0; i < LOADS + 1; i++) {
      await panel.goto(`chrome-extension://${EXTENSION_ID}/sidepanel.html`);
      await panel.bringToFront();
      await waitUntil(() => panel.evaluate("window.__firstRowsFrame !== undefined"), { timeoutMs: 30_000 });
      // The whole page (500 rows): its fetch came and was drawn (two fetches for a build that draws a screenful first).
      await waitUntil(
        () => panel.evaluate('document.querySelectorAll("li.monitor").length >= 500 && !vigil.busy().running'),
        {
          timeoutMs: 30_000,
        },
      );
      const t = await panel.evaluate(
        `({ rows: window.__firstRows, frame: window.__firstRowsFrame, whole: window.__wholeRows,
            items: document.querySelectorAll("li.monitor").length, first: window.__firstRowsCount,
            asked: performance.getEntriesByName("vigil:first-list-asked")[0]?.startTime ?? NaN,
            came: performance.getEntriesByName("vigil:first-list-came")[0]?.startTime ?? NaN,
            fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN })`,
      );
      if (i === 0) continue; // the first load warms the caches (and the daemon's statements)
      loads.rows.push(t.rows);
      loads.frame.push(t.frame);
      loads.whole.push(t.whole);
      loads.fcp.push(t.fcp);
      // null: a build that does not mark them (before this bench).
      loads.asked.push(t.asked ?? Number.NaN);
      loads.came.push(t.came ?? Number.NaN);
      loads.items = t.items;
      loads.first = t.first;
    }
    // Settled: the list is in and rendered.
    await sleep(2000);

    // (b) main-thread work per change: windows with changes, alternating with idle ones.
    const cdp = await panel.createCDPSession();
    await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
    const metrics = async () => {
      const { metrics: list } = await cdp.send("Performance.getMetrics");
      const get = (name) => list.find((m) => m.name === name)?.value ?? 0;
      const fetches = await panel.evaluate("vigil.fetches.whole + vigil.fetches.session");
      return {
        task: get("TaskDuration") * 1000,
        script: get("ScriptDuration") * 1000,
        layout: (get("LayoutDuration") + get("RecalcStyleDuration")) * 1000,
        fetches,
      };
    };
    const delta = (a, b) => ({
      task: b.task - a.task,
      script: b.script - a.script,
      layout: b.layout - a.layout,
      fetches: b.fetches - a.fetches,
    });
    const perChange = { task: [], raw: [], script: [], layout: [], idleTask: [], changes: 0, fetches: 0 };
    // The idle panel's own work first (its clock ticking), before any change.
    const idleRate = { task: [], script: [], layout: [] };
    for (let w = 0; w < WINDOWS; w++) {
      const i0 = await metrics();
      await sleep(WINDOW_SECONDS * 1000);
      const idle = delta(i0, await metrics());
      for (const k of Object.keys(idleRate)) idleRate[k].push(idle[k] / WINDOW_SECONDS);
    }
    const idle = Object.fromEntries(Object.entries(idleRate).map(([k, v]) => [k, quantile(v, 0.5)]));
    perChange.idleTask.push(idle.task);
    const settled = () =>
      waitUntil(
        () =>
          panel.evaluate(
            "(() => { const b = vigil.busy(); return !b.running && !b.timer && b.wanted.length === 0; })()",
          ),
        { timeoutMs: 60_000, everyMs: 50 },
      );
    for (let w = 0; w < WINDOWS; w++) {
      const c0 = await metrics();
      const t0 = performance.now();
      const stop = changes(daemon, ids);
      await sleep(WINDOW_SECONDS * 1000);
      const sent = await stop();
      // Everything those changes caused: the last fetch and render, and any backlog.
      await sleep(300);
      await settled();
      const busy = delta(c0, await metrics());
      const seconds = (performance.now() - t0) / 1000;
      perChange.task.push((busy.task - idle.task * seconds) / sent);
      perChange.raw.push(busy.task / sent);
      perChange.script.push((busy.script - idle.script * seconds) / sent);
      perChange.layout.push((busy.layout - idle.layout * seconds) / sent);
      perChange.changes += sent;
      perChange.fetches += busy.fetches;
    }

    if (process.env.BENCH_PANEL_PROFILE === "1") await profileChanges(cdp, daemon, ids);
    if (process.env.BENCH_PANEL_TRACE === "1") await traceChanges(panel, daemon, ids);

    // (c), second half: the open panel idle (in front), the worker in the same process, and about:blank;
    // with the metrics and the profiler off.
    await cdp.detach();
    await panel.bringToFront();
    const panelPid = await rendererOf(panel, root);
    await sleep(QUIET_SECONDS * 1000);
    const shared = panelPid === workerPid;
    const open = await cpuOver(
      shared ? { extension: panelPid, blank: blankPid } : { extension: panelPid, worker: workerPid, blank: blankPid },
      IDLE_SECONDS,
    );

    return { label, loads, perChange, workerAlone, open, shared, load: [load0, loadavg()[0]] };
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** BENCH_PANEL_PROFILE=1: a CPU profile of the panel page over one window of changes; the hottest functions by self time. */
async function profileChanges(cdp, daemon, ids) {
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  const stop = changes(daemon, ids);
  await sleep(WINDOW_SECONDS * 1000);
  const sent = await stop();
  await sleep(500);
  const { profile } = await cdp.send("Profiler.stop");
  const self = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const counts = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    counts.set(id, (counts.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  for (const [id, us] of counts) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const name = `${functionName || "(anonymous)"} ${url.split("/").pop()}:${lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + us / 1000);
  }
  console.log(`  profile of the panel over ${sent} changes (self time per change):`);
  for (const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15))
    console.log(`    ${(ms / sent).toFixed(2).padStart(8)} ms  ${name}`);
}

/** BENCH_PANEL_TRACE=1: a trace of the panel's main thread over one window of changes; the events taking most time. */
async function traceChanges(panel, daemon, ids) {
  await panel.tracing.start({ categories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8"] });
  const stop = changes(daemon, ids);
  await sleep(WINDOW_SECONDS * 1000);
  const sent = await stop();
  await sleep(500);
  const trace = JSON.parse(Buffer.from(await panel.tracing.stop()).toString("utf8"));
  const events = trace.traceEvents;
  const main = new Set(
    events.filter((e) => e.name === "thread_name" && e.args?.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`),
  );
  const total = new Map();
  for (const e of events) {
    if (e.ph !== "X" || !main.has(`${e.pid}:${e.tid}`)) continue;
    total.set(e.name, (total.get(e.name) ?? 0) + (e.tdur ?? e.dur ?? 0) / 1000);
  }
  console.log(`  trace of the renderer main threads over ${sent} changes (inclusive thread time per change):`);
  for (const [name, ms] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 20))
    console.log(`    ${(ms / sent).toFixed(2).padStart(8)} ms  ${name}`);
}

function report(r) {
  const med = (values) => quantile(values, 0.5);
  console.log(
    `  [${r.label}] (the machine's load average ${r.load[0].toFixed(1)} at the start, ${r.load[1].toFixed(1)} at the end)`,
  );
  console.log(
    `  (a) first list painted: navigation → first rows in the DOM ${fmt(med(r.loads.rows))} (${r.loads.first} rows), → the frame after ${fmt(med(r.loads.frame))} (median of ${r.loads.rows.length} loads; goal < 300 ms); the whole page (${r.loads.items} rows) in the DOM ${fmt(med(r.loads.whole))}; beside: the page's first contentful paint (its header) ${fmt(med(r.loads.fcp))}, the first list asked for at ${at(med(r.loads.asked.filter((v) => !Number.isNaN(v))))}, its answer in at ${at(med(r.loads.came.filter((v) => !Number.isNaN(v))))}`,
  );
  console.log(
    `  (b) main-thread work per change: ${fmt(med(r.perChange.task))} (CDP Performance.getMetrics TaskDuration of the panel page over windows of ${WINDOW_SECONDS} s at ${CHANGES_PER_SECOND} changes/s until the panel settled, minus the idle panel's own rate, ÷ changes; median of ${r.perChange.task.length} windows; goal < 16 ms): script ${fmt(med(r.perChange.script))}, style+layout ${fmt(med(r.perChange.layout))}; without subtracting the idle rate ${fmt(med(r.perChange.raw))}; ${r.perChange.changes} changes made ${r.perChange.fetches} fetches; beside: the idle panel's tasks ${fmt(med(r.perChange.idleTask))} a second`,
  );
  const where = r.shared
    ? "the extension's renderer (the panel page and the background worker share it)"
    : `the panel's renderer (the worker's own process: ${pct(r.open.worker.median)})`;
  console.log(
    `  (c) open idle panel: ${where} ${pct(r.open.extension.median)} of a core (median 10 s window; ${pct(r.open.extension.whole)} over ${IDLE_SECONDS} s, ${QUIET_SECONDS} s after the last change; goal < 1 %) — the worker's process before the panel opened ${pct(r.workerAlone.extension.median)}, an about:blank tab's renderer ${pct(r.open.blank.median)}`,
  );
}

export async function run() {
  const daemon = new Daemon();
  const ids = await seed(daemon.home);
  await daemon.start();
  try {
    console.log(
      `panel in the browser: ${SESSIONS * PER_SESSION} monitors in ${SESSIONS} sessions (half waitpoints, half time monitors), ${CHANGES_PER_SECOND} changes/s (progress signals), headless Chromium, 400×900`,
    );
    const builds = [];
    if (process.env.BENCH_PANEL_BEFORE)
      builds.push(["before", join(process.env.BENCH_PANEL_BEFORE, ".output", "chrome-mv3")]);
    builds.push([process.env.BENCH_PANEL_BEFORE ? "after" : "this build", join(ROOT, ".output", "chrome-mv3")]);
    for (const [label, dir] of builds) {
      if (!existsSync(join(dir, "manifest.json")))
        throw new Error(`Expected a built extension in ${dir} (npm run build)`);
      report(await measure(label, dir, daemon, ids));
    }
  } finally {
    await daemon.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
