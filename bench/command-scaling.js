// Issue #19's scaling curve: N command waits (`test -f` on a file that never appears, 4 per session)
// checked by the daemon, against N shell loops `until test -f …; do sleep I; done` doing the same
// checks at the same interval, one after the other in the same run, for N = 100, 1,000, 3,000 and
// 10,000 (BENCH_CS_WAITS=100,1000 to change). The interval grows with N so that neither side is asked
// for more than 200 checks a second — I = max(5 s, N / 200) — and what is drawn is what each side
// costs at the same work, not a saturated machine. Each point: the waits seeded before the daemon
// starts, a warm-up of one interval + 5 s (the first round starts at once, later ones spread over
// the interval), then max(BENCH_CS_SECONDS = 60, 2 intervals) of measurement; medians of
// BENCH_CS_RUNS = 3 runs. CPU is exact per side from a cgroup (command-waits.js, bench/lib.js
// CpuGroup): Vigil = daemon + vigil-spawner + every check process; loops = every sh and its sleeps.
// Vigil's lag is the status route's checkLag (over the last 1,000 checks, read every 1,000 checks).
// Writes bench/results/command-scaling.json (raw runs) and docs/images/command-scaling.svg;
// `node bench/command-scaling.js --redraw` draws the SVG (and prints the table) from the JSON alone.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { measureLoops, measureVigil, median } from "./command-waits.js";
import { cpuAccounting, ROOT } from "./lib.js";

const WAITS = (process.env.BENCH_CS_WAITS ?? "100,1000,3000,10000").split(",").map(Number);
const RUNS = Number(process.env.BENCH_CS_RUNS ?? 3);
const MIN_SECONDS = Number(process.env.BENCH_CS_SECONDS ?? 60);
const WARMUP_EXTRA = Number(process.env.BENCH_CS_WARMUP ?? 5);
const MAX_RATE = 200; // checks a second, either side
const FLOOR = 5; // Vigil's interval floor, seconds
const JSON_PATH = join(ROOT, "bench", "results", "command-scaling.json");
const SVG_PATH = join(ROOT, "docs", "images", "command-scaling.svg");

export const intervalFor = (waits) => Math.max(FLOOR, Math.ceil(waits / MAX_RATE));

// ------------------------------------------------------------------ measuring

function medians(runs) {
  const of = (side) => {
    const rows = runs.map((r) => r[side]).filter(Boolean);
    if (rows.length === 0) return null;
    const keys = Object.keys(rows[0]).filter((k) => typeof rows[0][k] === "number");
    return Object.fromEntries(keys.map((k) => [k, median(rows.map((r) => r[k]).filter((x) => x !== null))]));
  };
  const vigil = of("vigil");
  const loops = of("loops");
  return { vigil, loops, ratio: vigil && loops ? vigil.cpu / loops.cpu : null };
}

function save(results) {
  for (const point of results.points) point.median = medians(point.runs);
  mkdirSync(dirname(JSON_PATH), { recursive: true });
  writeFileSync(JSON_PATH, `${JSON.stringify(results, null, 2)}\n`);
}

async function measure() {
  const how = cpuAccounting();
  const spawner = process.env.VIGIL_SPAWNER === "off" ? "off (VIGIL_SPAWNER=off)" : "on";
  const results = {
    generated: new Date().toISOString(),
    command: "npm run bench:command-scaling",
    machine: {
      cores: cpus().length,
      cpu: cpus()[0]?.model,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      kernel: release(),
    },
    cpuAccounting: { kind: how.kind, note: how.note },
    settings: {
      maxChecksPerSecond: MAX_RATE,
      intervalFloorSeconds: FLOOR,
      interval: `max(${FLOOR} s, waits / ${MAX_RATE} checks/s)`,
      warmup: `interval + ${WARMUP_EXTRA} s`,
      measured: `max(${MIN_SECONDS} s, 2 intervals)`,
      runs: RUNS,
      spawner,
      command: "test -f /nonexistent/vigil-bench-flag (Vigil) · until test -f …; do sleep I; done (loops)",
    },
    points: WAITS.map((waits) => {
      const intervalSeconds = intervalFor(waits);
      return {
        waits,
        intervalSeconds,
        checksPerSecond: waits / intervalSeconds,
        warmupSeconds: intervalSeconds + WARMUP_EXTRA,
        seconds: Math.max(MIN_SECONDS, 2 * intervalSeconds),
        runs: [],
      };
    }),
  };
  const total = results.points.reduce((sum, p) => sum + 2 * (p.warmupSeconds + p.seconds) + 15, 0) * RUNS;
  console.log(
    `command waits vs shell loops at ${WAITS.join(", ")} waits: interval = max(${FLOOR} s, waits / ${MAX_RATE}) so both sides do at most ${MAX_RATE} checks a second ` +
      `(${results.points.map((p) => `${p.waits} → ${p.intervalSeconds} s`).join(", ")}); warm-up one interval + ${WARMUP_EXTRA} s, measured max(${MIN_SECONDS} s, 2 intervals); ` +
      `median of ${RUNS} runs (about ${Math.ceil(total / 60)} min); vigil-spawner ${spawner}.\n${how.note}. ` +
      `${cpus().length} cores, shared: other work on the machine slows both sides (but is not counted in their CPU with a cgroup).`,
  );
  for (let run = 0; run < RUNS; run++) {
    for (const point of results.points) {
      const options = { waits: point.waits, intervalSeconds: point.intervalSeconds, seconds: point.seconds };
      const entry = { loadBefore: Number(loadavg()[0].toFixed(2)) };
      entry.vigil = await measureVigil({ ...options, warmupSeconds: point.warmupSeconds });
      try {
        entry.loops = await measureLoops({ ...options, warmupSeconds: point.warmupSeconds });
      } catch (error) {
        entry.loops = null;
        entry.loopsError = error.message;
      }
      entry.loadAfter = Number(loadavg()[0].toFixed(2));
      point.runs.push(entry);
      save(results);
      const { vigil: v, loops: l } = entry;
      console.log(
        `  run ${run + 1}/${RUNS} · ${point.waits} waits at ${point.intervalSeconds} s (load ${entry.loadBefore} → ${entry.loadAfter}): ` +
          `vigil ${pct(v.cpu)}, lag p50 ${ms(v.lagP50Ms)} · p99 ${ms(v.lagP99Ms)}, ${rate(v.checksPerSecond)} checks · ` +
          (l
            ? `loops ${pct(l.cpu)}, ${rate(l.checksPerSecond)} checks → ratio ${(v.cpu / l.cpu).toFixed(2)}`
            : `loops: ${entry.loopsError}`),
      );
    }
  }
  results.finished = new Date().toISOString();
  save(results);
  return results;
}

// ------------------------------------------------------------------ the table

const pct = (cores) => (cores === undefined || cores === null ? "—" : `${(100 * cores).toFixed(1)} %`);
const rate = (value) => (value === undefined || value === null ? "?" : `${value.toFixed(0)}/s`);
const mb = (value) => (value === undefined || value === null ? "—" : `${Math.round(value).toLocaleString("en-US")} MB`);
const thousands = (n) => n.toLocaleString("en-US");
/** 0.4 ms, 3.2 ms, 61 ms, 1.25 s */
const ms = (value) =>
  value === undefined || value === null
    ? "—"
    : value < 10
      ? `${Number(value.toFixed(1))} ms`
      : value < 1000
        ? `${value.toFixed(0)} ms`
        : `${Number((value / 1000).toFixed(2))} s`;

function table(results) {
  const rows = [
    "| waits | interval (checks/s asked) | Vigil CPU | shell loops CPU | Vigil ÷ loops | Vigil lag p50 · p99 | checks done, Vigil / loops | RSS (PSS), Vigil | summed RSS (PSS), loops | processes, Vigil / loops |",
    "| ----: | ------------------------- | --------: | --------------: | ------------: | ------------------- | -------------------------- | ---------------- | ----------------------- | ------------------------ |",
  ];
  for (const point of results.points) {
    const { vigil: v, loops: l, ratio } = point.median ?? medians(point.runs);
    if (!v) continue;
    rows.push(
      `| ${thousands(point.waits)} | ${point.intervalSeconds} s (${thousands(point.checksPerSecond)}/s) | ${pct(v.cpu)} | ${pct(l?.cpu)} | ${ratio === null ? "—" : ratio.toFixed(2)} | ${ms(v.lagP50Ms)} · ${ms(v.lagP99Ms)} | ${rate(v.checksPerSecond)} / ${rate(l?.checksPerSecond)} | ${mb(v.rssMb)} (${mb(v.pssMb)}) | ${l ? `${mb(l.rssMb)} (${mb(l.pssMb)})` : "—"} | ${v.processes} / ${l ? thousands(l.processes) : "—"} |`,
    );
  }
  const runs = Math.min(...results.points.map((p) => p.runs.length));
  return `${rows.join("\n")}\n\nMedians of ${runs} run${runs === 1 ? "" : "s"} (${results.generated.slice(0, 16).replace("T", " ")} UTC, ${results.machine.cores} cores, Node ${results.machine.node.slice(1)}); ${results.cpuAccounting.note}; interval = ${results.settings.interval}; vigil-spawner ${results.settings.spawner}.`;
}

// ------------------------------------------------------------------ the chart (hand-written SVG)

const esc = (text) => String(text).replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

function niceMax(value) {
  const step = 10 ** Math.floor(Math.log10(value || 1));
  for (const m of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * step >= value) return m * step;
  return 10 * step;
}

export function drawSvg(results) {
  const points = results.points
    .map((p) => ({ ...p, m: p.median ?? medians(p.runs) }))
    .filter((p) => p.m.vigil)
    .sort((a, b) => a.waits - b.waits);
  const W = 760;
  const H = 660;
  const left = 84;
  const right = W - 36;
  const cpuTop = 140;
  const cpuBottom = 380;
  const lagTop = 478;
  const lagBottom = 568;
  const color = {
    vigil: "#0969da",
    loops: "#bc4c00",
    lag: "#8250df",
    text: "#1f2328",
    muted: "#59636e",
    grid: "#e6e9ed",
  };
  const halo = 'paint-order="stroke" stroke="#ffffff" stroke-width="4" stroke-linejoin="round"';
  const font = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif";

  const logs = points.map((p) => Math.log10(p.waits));
  const lo = Math.min(...logs) - 0.15;
  const hi = Math.max(...logs) + 0.15;
  const x = (waits) => left + ((Math.log10(waits) - lo) / (hi - lo)) * (right - left);

  const cpuValues = points.flatMap((p) => [p.m.vigil.cpu, p.m.loops?.cpu ?? 0]).map((c) => 100 * c);
  const cpuMax = niceMax(Math.max(...cpuValues) * 1.15);
  const yCpu = (percent) => cpuBottom - (percent / cpuMax) * (cpuBottom - cpuTop);

  const lagValues = points.map((p) => p.m.vigil.lagP99Ms).filter((v) => v !== null);
  const lagMax = 10 ** Math.max(1, Math.ceil(Math.log10(2 * Math.max(...lagValues, 5))));
  const lagMin = 1;
  const yLag = (ms) =>
    lagBottom -
    ((Math.log10(Math.max(lagMin, ms)) - Math.log10(lagMin)) / Math.log10(lagMax / lagMin)) * (lagBottom - lagTop);

  const out = [];
  const text = (tx, ty, content, attrs = "") =>
    out.push(`<text x="${tx.toFixed(1)}" y="${ty.toFixed(1)}" ${attrs}>${esc(content)}</text>`);
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="${font}" font-size="12" fill="${color.text}" role="img" aria-labelledby="title desc">`,
    `<title id="title">Command waits vs shell loops: CPU and check lag from ${thousands(points[0].waits)} to ${thousands(points.at(-1).waits)} waits</title>`,
    `<desc id="desc">${esc(points.map((p) => `${thousands(p.waits)} waits at ${p.intervalSeconds} s: Vigil ${pct(p.m.vigil.cpu)}, shell loops ${pct(p.m.loops?.cpu)}, lag p99 ${ms(p.m.vigil.lagP99Ms)}`).join("; "))}</desc>`,
    `<rect x="0.5" y="0.5" width="${W - 1}" height="${H - 1}" rx="8" fill="#ffffff" stroke="#d1d9e0"/>`,
  );
  text(
    24,
    32,
    "Command waits vs the shell loops they replace: CPU as the waits grow",
    'font-size="16" font-weight="600"',
  );
  text(
    24,
    52,
    `Same checks (test -f), same interval = max(5 s, waits ÷ 200): neither side is asked for more than 200 checks a second.`,
    `fill="${color.muted}"`,
  );
  const runs = Math.min(...points.map((p) => p.runs.length));
  text(
    24,
    70,
    `CPU counted exactly per side by a cgroup (children included) · median of ${runs} run${runs === 1 ? "" : "s"} · ${results.generated.slice(0, 10)} · ${results.machine.cores}-core Linux VM, Node ${results.machine.node.slice(1)}`,
    `fill="${color.muted}"`,
  );

  // CPU panel: grid, axes, ticks.
  text(left, cpuTop - 14, "% of one core", `font-weight="600"`);
  for (let i = 0; i <= 5; i++) {
    const value = (cpuMax / 5) * i;
    const y = yCpu(value);
    out.push(`<line x1="${left}" y1="${y.toFixed(1)}" x2="${right}" y2="${y.toFixed(1)}" stroke="${color.grid}"/>`);
    text(left - 8, y + 4, `${Number(value.toFixed(1))} %`, `text-anchor="end" fill="${color.muted}"`);
  }
  for (const p of points) {
    out.push(
      `<line x1="${x(p.waits).toFixed(1)}" y1="${cpuTop}" x2="${x(p.waits).toFixed(1)}" y2="${cpuBottom}" stroke="${color.grid}" stroke-dasharray="2 4"/>`,
    );
    text(x(p.waits), cpuBottom + 18, thousands(p.waits), `text-anchor="middle" font-weight="600"`);
    text(x(p.waits), cpuBottom + 33, `every ${p.intervalSeconds} s`, `text-anchor="middle" fill="${color.muted}"`);
    if (p.m.ratio !== null) {
      text(
        x(p.waits),
        cpuBottom + 48,
        `Vigil ÷ loops ${p.m.ratio.toFixed(2)}`,
        `text-anchor="middle" fill="${color.muted}"`,
      );
    }
  }
  out.push(`<line x1="${left}" y1="${cpuBottom}" x2="${right}" y2="${cpuBottom}" stroke="${color.muted}"/>`);

  const series = (pointsOf, stroke, dash, marker) => {
    const xy = pointsOf.map(([w, v]) => [x(w), yCpu(100 * v)]);
    out.push(
      `<polyline points="${xy.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(" ")}" fill="none" stroke="${stroke}" stroke-width="2.5" ${dash ? `stroke-dasharray="${dash}"` : ""} stroke-linejoin="round"/>`,
    );
    for (const [a, b] of xy) out.push(marker(a, b));
  };
  const circle = (a, b) =>
    `<circle cx="${a.toFixed(1)}" cy="${b.toFixed(1)}" r="4.5" fill="${color.vigil}" stroke="#ffffff" stroke-width="1.5"/>`;
  const square = (a, b) =>
    `<rect x="${(a - 4.5).toFixed(1)}" y="${(b - 4.5).toFixed(1)}" width="9" height="9" fill="${color.loops}" stroke="#ffffff" stroke-width="1.5"/>`;
  const loopsPoints = points.filter((p) => p.m.loops).map((p) => [p.waits, p.m.loops.cpu]);
  series(loopsPoints, color.loops, "7 4", square);
  series(
    points.map((p) => [p.waits, p.m.vigil.cpu]),
    color.vigil,
    null,
    circle,
  );
  // Value labels: the higher of the two above its point, the lower below.
  for (const p of points) {
    const v = p.m.vigil.cpu;
    const l = p.m.loops?.cpu;
    const vigilAbove = l === undefined || v >= l;
    const label = (value, above, fill) => {
      const y = yCpu(100 * value);
      if (!above && y + 20 > cpuBottom - 3) {
        // Too close to the axis below: beside the point instead.
        text(x(p.waits) + 10, y + 4, pct(value), `font-weight="600" fill="${fill}" ${halo}`);
      } else {
        text(
          x(p.waits),
          y + (above ? -11 : 20),
          pct(value),
          `text-anchor="middle" font-weight="600" fill="${fill}" ${halo}`,
        );
      }
    };
    label(v, vigilAbove, color.vigil);
    if (l !== undefined) label(l, !vigilAbove, color.loops);
  }
  // Legend, above the panel (never over a point).
  const lx = 24;
  const ly = 96;
  out.push(
    `<line x1="${lx}" y1="${ly}" x2="${lx + 26}" y2="${ly}" stroke="${color.vigil}" stroke-width="2.5"/>`,
    circle(lx + 13, ly),
  );
  text(lx + 34, ly + 4, `Vigil: daemon + vigil-spawner + its check processes`);
  const lx2 = 380;
  out.push(
    `<line x1="${lx2}" y1="${ly}" x2="${lx2 + 26}" y2="${ly}" stroke="${color.loops}" stroke-width="2.5" stroke-dasharray="7 4"/>`,
    square(lx2 + 13, ly),
  );
  text(lx2 + 34, ly + 4, "one shell loop per wait: until test -f …; do sleep I; done");

  // Lag panel (log scale).
  text(
    left,
    lagTop - 14,
    "Vigil's check lag: how late checks start — p99 labelled, p50 dotted (log scale; dashed: the goal, p99 < 1 s)",
    `font-weight="600"`,
  );
  for (let decade = lagMin; decade <= lagMax; decade *= 10) {
    const y = yLag(decade);
    out.push(`<line x1="${left}" y1="${y.toFixed(1)}" x2="${right}" y2="${y.toFixed(1)}" stroke="${color.grid}"/>`);
    text(left - 8, y + 4, ms(decade), `text-anchor="end" fill="${color.muted}"`);
  }
  const oneSecond = yLag(1000);
  if (1000 <= lagMax) {
    out.push(
      `<line x1="${left}" y1="${oneSecond.toFixed(1)}" x2="${right}" y2="${oneSecond.toFixed(1)}" stroke="${color.muted}" stroke-dasharray="4 3"/>`,
    );
  }
  const p50Xy = points.map((p) => [x(p.waits), yLag(p.m.vigil.lagP50Ms)]);
  out.push(
    `<polyline points="${p50Xy.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(" ")}" fill="none" stroke="${color.lag}" stroke-width="1.5" stroke-dasharray="2 3"/>`,
  );
  for (const [a, b] of p50Xy) {
    out.push(
      `<circle cx="${a.toFixed(1)}" cy="${b.toFixed(1)}" r="2.5" fill="#ffffff" stroke="${color.lag}" stroke-width="1.5"/>`,
    );
  }
  const lagXy = points.map((p) => [x(p.waits), yLag(p.m.vigil.lagP99Ms)]);
  out.push(
    `<polyline points="${lagXy.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(" ")}" fill="none" stroke="${color.lag}" stroke-width="2"/>`,
  );
  points.forEach((p, i) => {
    const [a, b] = lagXy[i];
    out.push(
      `<circle cx="${a.toFixed(1)}" cy="${b.toFixed(1)}" r="4" fill="${color.lag}" stroke="#ffffff" stroke-width="1.5"/>`,
    );
    const below = b < lagTop + 18;
    const last = i === points.length - 1 && points.length > 1;
    text(
      last ? a - 8 : a + 8,
      below ? b + 16 : b - 8,
      ms(p.m.vigil.lagP99Ms),
      `${last ? 'text-anchor="end" ' : ""}fill="${color.lag}" font-weight="600" ${halo}`,
    );
  });
  out.push(`<line x1="${left}" y1="${lagBottom}" x2="${right}" y2="${lagBottom}" stroke="${color.muted}"/>`);
  for (const p of points)
    text(x(p.waits), lagBottom + 16, thousands(p.waits), `text-anchor="middle" fill="${color.muted}"`);
  text(
    24,
    H - 40,
    "waits (log scale) — Vigil's lag is its checkLag over the last 1,000 checks, read every 1,000 checks; the loops' is not measured.",
    `fill="${color.muted}"`,
  );
  text(
    24,
    H - 22,
    `npm run bench:command-scaling · raw runs: bench/results/command-scaling.json · redraw: node bench/command-scaling.js --redraw`,
    `fill="${color.muted}"`,
  );
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

function draw(results) {
  mkdirSync(dirname(SVG_PATH), { recursive: true });
  writeFileSync(SVG_PATH, drawSvg(results));
  console.log(
    `\n${table(results)}\n\nwrote ${SVG_PATH.slice(ROOT.length + 1)} (raw runs: ${JSON_PATH.slice(ROOT.length + 1)})`,
  );
}

export async function run() {
  draw(await measure());
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes("--redraw")) draw(JSON.parse(readFileSync(JSON_PATH, "utf8")));
  else await run();
}
