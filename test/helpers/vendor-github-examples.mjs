#!/usr/bin/env node
/**
 * Regenerates test/helpers/github-examples.json, the response bodies the fake GitHub API
 * (fake-github.ts) answers with: GitHub's own published examples, copied verbatim from the OpenAPI
 * description in the `@octokit/openapi` package (385 MB unpacked, so it is not a dependency).
 * Run by hand when GitHub's examples should be brought up to date:
 *
 *   cd /tmp && npm pack @octokit/openapi@23.0.2 && mkdir -p octokit-openapi &&
 *     tar xzf octokit-openapi-23.0.2.tgz -C octokit-openapi --strip-components=1
 *   node test/helpers/vendor-github-examples.mjs /tmp/octokit-openapi
 *
 * then run the github tests (npx vitest run native-host/src/tools/github test/integration/github).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The examples the fake uses, by the name GitHub gives them in `components.examples`. */
const NAMES = [
  "pull-request",
  "check-run-paginated",
  "combined-commit-status",
  "pull-request-review-items",
  "pull-request-review-comment-items",
  "workflow-run",
  "job-paginated",
  "workflow-run-paginated",
  "deployment-items",
  "deployment-status-items",
];

const root = process.argv[2];
if (!root) {
  process.stderr.write("usage: node test/helpers/vendor-github-examples.mjs PATH/TO/@octokit/openapi\n");
  process.exit(2);
}
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const file = "generated/api.github.com.json";
const text = readFileSync(join(root, file), "utf8");
const spec = JSON.parse(text);
const examples = {};
for (const name of NAMES) {
  const example = spec.components.examples[name];
  if (!example) throw new Error(`Expected components.examples["${name}"] in ${file}, got none`);
  examples[name] = example.value;
}
const out = {
  source: `@octokit/openapi ${version}, ${file}, components.examples (values copied verbatim)`,
  sha256: createHash("sha256").update(text).digest("hex"),
  examples,
};
const target = join(import.meta.dirname, "github-examples.json");
writeFileSync(target, `${JSON.stringify(out, null, 2)}\n`);
// As the repository's formatter writes JSON, so `npm run lint` passes on the file as written.
execFileSync(join(import.meta.dirname, "..", "..", "node_modules", ".bin", "biome"), ["format", "--write", target], {
  stdio: "ignore",
});
process.stdout.write(`wrote ${target}: ${NAMES.length} examples from @octokit/openapi ${version}\n`);
