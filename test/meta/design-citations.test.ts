/**
 * Every source file of the product names its place in docs/design.md, and every section it cites
 * exists there (so the document and the code cannot drift apart silently).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, test } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const design = readFileSync(join(ROOT, "docs", "design.md"), "utf8");
const sections = new Set([...design.matchAll(/^#{2,3} (\d+(?:\.\d+)?)[. ]/gm)].map((m) => m[1]));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(name) && !name.endsWith(".test.ts") ? [path] : [];
  });
}

const files = [
  ...sourceFiles(join(ROOT, "native-host", "src")),
  ...sourceFiles(join(ROOT, "shared")),
  ...sourceFiles(join(ROOT, "extension", "entrypoints")),
  ...sourceFiles(join(ROOT, "extension", "lib")),
  ...sourceFiles(join(ROOT, "bin")),
].map((path) => relative(ROOT, path));

test("the design document has its numbered sections", () => {
  expect([...sections]).toEqual(expect.arrayContaining(["1", "2", "3", "4", "4.1", "4.2", "4.3", "5", "6", "7", "8"]));
});

test.each(files)("%s cites docs/design.md in its header", (file) => {
  const text = readFileSync(join(ROOT, file), "utf8");
  const header = text.slice(0, text.search(/^(import|export|const|function|class)\b/m));
  const cited = [...header.matchAll(/design\.md ((?:§\d+(?:\.\d+)?(?:, )?)+)/g)].flatMap((m) =>
    [...(m[1] as string).matchAll(/§(\d+(?:\.\d+)?)/g)].map((s) => s[1] as string),
  );
  expect(cited.length, `${file} has no "Design: docs/design.md §N" in its header comment`).toBeGreaterThan(0);
  for (const section of cited)
    expect(sections, `${file} cites §${section}, which docs/design.md lacks`).toContain(section);
});

test("no code cites the old specification", () => {
  const offenders = files.filter((file) => /SPEC ?§/.test(readFileSync(join(ROOT, file), "utf8")));
  expect(offenders).toEqual([]);
});
