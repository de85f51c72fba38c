import { expect, test } from "vitest";
import { parsePrRef, waitPrBody } from "./wait-pr-command.js";

test.each([
  ["octocat/Hello-World#1347", { repo: "octocat/Hello-World", number: 1347 }],
  ["https://github.com/octocat/Hello-World/pull/1347", { repo: "octocat/Hello-World", number: 1347 }],
  ["https://github.com/octocat/Hello-World/pull/1347/files", { repo: "octocat/Hello-World", number: 1347 }],
  ["https://github.com/octocat/Hello-World/pull/1347/checks?x=1#top", { repo: "octocat/Hello-World", number: 1347 }],
  [
    "https://ghe.example.com/team/app/pull/7",
    { repo: "team/app", number: 7, apiUrl: "https://ghe.example.com/api/v3" },
  ],
])("%s names the pull request", (raw, expected) => {
  expect(parsePrRef(raw)).toEqual(expected);
});

test.each([
  "octocat/Hello-World",
  "octocat/Hello-World#0",
  "Hello-World#12",
  "https://github.com/octocat/Hello-World/issues/12",
  "ftp://github.com/octocat/Hello-World/pull/12",
  "#12",
])("%s is a usage error saying what was expected", (raw) => {
  expect(() => parsePrRef(raw)).toThrow(
    `Expected OWNER/REPO#N or a pull request URL like https://github.com/OWNER/REPO/pull/N, got ${JSON.stringify(raw)}`,
  );
  try {
    parsePrRef(raw);
  } catch (error) {
    expect((error as { exitCode: number }).exitCode).toBe(2);
  }
});

test("--api-url wins over the URL's host; defaults per --for; --every and --timeout are taken", () => {
  const pr = parsePrRef("https://ghe.example.com/team/app/pull/7");
  expect(waitPrBody(pr, "checks", {})).toMatchObject({
    name: "team/app#7: checks",
    intervalSeconds: 60,
    timeoutSeconds: 7200,
    source: { args: { repo: "team/app", number: 7, api_url: "https://ghe.example.com/api/v3" } },
  });
  expect(waitPrBody(pr, "merge", { apiUrl: "http://127.0.0.1:9/api", every: "15", timeout: "600" })).toMatchObject({
    intervalSeconds: 15,
    timeoutSeconds: 600,
    source: { args: { api_url: "http://127.0.0.1:9/api" } },
  });
  expect(() => waitPrBody(pr, "review", { apiUrl: "ghe.example.com" })).toThrow(
    "Expected --api-url to be an http(s) URL like https://ghe.example/api/v3, got ghe.example.com",
  );
  expect(() => waitPrBody(pr, "review", { every: "soon" })).toThrow(
    "Expected --every to be a number of seconds, got soon",
  );
});
