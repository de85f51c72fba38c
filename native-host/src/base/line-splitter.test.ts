import { expect, test } from "vitest";
import { LineSplitter } from "./line-splitter.js";

function split(chunks: string[], max = 10) {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line), max);
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return lines;
}

test("joins lines split across chunks and keeps a last line without newline", () => {
  expect(split(["ab", "c\nde", "f\r\ng"])).toEqual(["abc", "def", "g"]);
});

test("cuts a long line at the cap and drops the rest of it", () => {
  const lines = split(["0123456789ABCDEF", "GHIJ\nnext\n"]);
  expect(lines).toEqual(["0123456789 …[line cut at 10 characters]", "next"]);
});
