/**
 * The README is a front door and the guides in docs/ are where the rest lives: every relative link
 * and `#anchor` in README.md and docs/*.md leads somewhere (anchors by GitHub's heading slugs), the
 * README stays under 250 lines and links every guide, and each guide opens with one paragraph
 * saying who it is for.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { expect, test } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const DOCS = join(ROOT, "docs");
const FILES = [
  join(ROOT, "README.md"),
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(DOCS, f)),
];
/** The design, the reference and plans are not task guides: they open their own way. */
const NOT_GUIDES = new Set(["design.md", "reference.md", "team-mode-plan.md"]);
const GUIDES = readdirSync(DOCS).filter((f) => f.endsWith(".md") && !NOT_GUIDES.has(f));

/** The text outside fenced code blocks (``` or ````), line numbers kept. */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fence: string | null = null;
  markdown.split("\n").forEach((text, i) => {
    const opener = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence === null && opener) fence = opener;
    else if (fence !== null && text.trim().startsWith(fence)) fence = null;
    else if (fence === null) out.push({ line: i + 1, text });
  });
  return out;
}

/** GitHub's anchor for a heading: lowercased, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const plain = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[`*]/g, "");
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

/** Relative link targets outside code: `[text](target)` and `![alt](target)`, with their line. */
function relativeLinks(markdown: string): Array<{ line: number; target: string }> {
  const links: Array<{ line: number; target: string }> = [];
  for (const { line, text } of proseLines(markdown)) {
    const outsideCode = text.replace(/`[^`]*`/g, "");
    for (const [, target] of outsideCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target as string)) links.push({ line, target: target as string });
    }
  }
  return links;
}

test.each(FILES.map((file) => [relative(ROOT, file), file]))(
  "every relative link and anchor in %s resolves",
  (_name, file) => {
    const broken: string[] = [];
    for (const { line, target } of relativeLinks(readFileSync(file, "utf8"))) {
      const [path, anchor] = target.split("#") as [string, string | undefined];
      const into = path === "" ? file : resolve(dirname(file), decodeURI(path));
      if (!existsSync(into)) {
        broken.push(`line ${line}: ${target} (no ${relative(ROOT, into)})`);
        continue;
      }
      if (anchor === undefined || !into.endsWith(".md") || statSync(into).isDirectory()) continue;
      if (!headingSlugs(readFileSync(into, "utf8")).has(anchor)) {
        broken.push(`line ${line}: ${target} (${relative(ROOT, into)} has no heading #${anchor})`);
      }
    }
    expect(broken, `Expected every link to resolve, got broken ones`).toEqual([]);
  },
);

test("the README is a front door: under 250 lines, and it links every guide", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const lines = readme.split("\n").length;
  expect(lines, `Expected README.md under 250 lines, got ${lines}`).toBeLessThan(250);
  const linked = new Set(relativeLinks(readme).map(({ target }) => target.split("#")[0]));
  for (const guide of [...GUIDES, "reference.md"])
    expect([...linked], `README links docs/${guide}`).toContain(`docs/${guide}`);
});

test.each(GUIDES)("docs/%s opens with one paragraph saying who it is for", (guide) => {
  const [title, first] = readFileSync(join(DOCS, guide), "utf8").split(/\n\s*\n/);
  expect(title, `docs/${guide} starts with a "# " title`).toMatch(/^# \S/);
  expect(first, `Expected docs/${guide}'s first paragraph to start "For …"`).toMatch(/^For /);
});

test("the slugs follow GitHub's rules", () => {
  const slugs = headingSlugs(
    "# Vigil\n## 1. Architecture\n## `vigil signal`\n## design.md §7 — the panel's data\n```\n## not a heading\n```\n## Vigil\n### Wait for a pull request\n",
  );
  expect([...slugs]).toEqual([
    "vigil",
    "1-architecture",
    "vigil-signal",
    "designmd-7--the-panels-data",
    "vigil-1",
    "wait-for-a-pull-request",
  ]);
});
