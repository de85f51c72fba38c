// Reads a V8 .cpuprofile (node --cpu-prof) and writes beside it a flame graph (.svg, one box per
// call path, width = time spent in it and below) and returns the functions that cost most: self
// time and time including callees, as shares of all samples. The .cpuprofile itself opens in
// Chrome DevTools (Performance → Load profile) or speedscope for a zoomable view.
// `node bench/profile-report.js FILE.cpuprofile` prints the table.
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";

const nameOf = (frame) => {
  const where = frame.url ? `${basename(frame.url)}:${frame.lineNumber + 1}` : "";
  return `${frame.functionName || "(anonymous)"}${where ? ` ${where}` : ""}`;
};

/** The profile's call tree with each node's self and total sample counts. */
function tree(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, { ...node, self: 0, total: 0 }]));
  for (const id of profile.samples) byId.get(id).self++;
  const root = byId.get(profile.nodes[0].id);
  const fill = (node) => {
    node.total = node.self;
    node.kids = (node.children ?? []).map((id) => byId.get(id));
    for (const kid of node.kids) node.total += fill(kid);
    return node.total;
  };
  fill(root);
  return root;
}

/** Top `limit` functions by self time and by total time (a recursive call counted once). */
export function hotFunctions(file, limit = 25) {
  const root = tree(JSON.parse(readFileSync(file, "utf8")));
  const self = new Map();
  const total = new Map();
  const walk = (node, onStack) => {
    const key = nameOf(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + node.self);
    const fresh = !onStack.has(key);
    if (fresh) {
      total.set(key, (total.get(key) ?? 0) + node.total);
      onStack.add(key);
    }
    for (const kid of node.kids) walk(kid, onStack);
    if (fresh) onStack.delete(key);
  };
  walk(root, new Set());
  const all = root.total;
  const top = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, n]) => ({ name, share: n / all }));
  return { samples: all, self: top(self), total: top(total) };
}

const escapeXml = (text) => text.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** An SVG flame graph of the profile (callers below, callees above), written to `out`. */
export function flameGraph(file, out) {
  const root = tree(JSON.parse(readFileSync(file, "utf8")));
  const width = 1600;
  const row = 16;
  const boxes = [];
  let depth = 0;
  const place = (node, x, level) => {
    const w = (node.total / root.total) * width;
    if (w < 0.5) return;
    depth = Math.max(depth, level);
    boxes.push({ x, level, w, name: nameOf(node.callFrame), share: node.total / root.total });
    let at = x;
    for (const kid of node.kids) {
      place(kid, at, level + 1);
      at += (kid.total / root.total) * width;
    }
  };
  place(root, 0, 0);
  const height = (depth + 1) * row;
  const rects = boxes.map((b) => {
    const y = height - (b.level + 1) * row;
    const hue = 20 + ((b.name.length * 37) % 40);
    const label = b.w > 40 ? escapeXml(b.name.slice(0, Math.floor(b.w / 6.5))) : "";
    return `<g><title>${escapeXml(b.name)} ${(100 * b.share).toFixed(2)} %</title><rect x="${b.x.toFixed(1)}" y="${y}" width="${b.w.toFixed(1)}" height="${row - 1}" fill="hsl(${hue},80%,60%)"/><text x="${(b.x + 2).toFixed(1)}" y="${y + row - 4}">${label}</text></g>`;
  });
  writeFileSync(
    out,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="monospace" font-size="11">${rects.join("")}</svg>\n`,
  );
}

export function printHot(file, limit = 25) {
  const hot = hotFunctions(file, limit);
  const rows = (list) => list.map((f) => `  ${(100 * f.share).toFixed(1).padStart(5)} %  ${f.name}`).join("\n");
  console.log(
    `profile ${file}: ${hot.samples} samples\nself time:\n${rows(hot.self)}\nincluding callees:\n${rows(hot.total)}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printHot(process.argv[2], Number(process.argv[3] ?? 25));
