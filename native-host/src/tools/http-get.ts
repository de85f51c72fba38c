/**
 * `http__get`: GET a URL; returns status, headers and the body (parsed when it is JSON, capped).
 * Design: docs/design.md §4.1.
 */
import { z } from "zod";
import { substituteValues } from "../secrets/references.js";
import { BODY_CAP, type Tool, ToolError } from "./tool.js";

const Args = z.strictObject({
  url: z.string().refine((value) => /^https?:\/\//.test(value), "Expected an http(s) URL"),
  headers: z.record(z.string(), z.string()).optional(),
});

export const httpGet: Tool<z.infer<typeof Args>> = {
  name: "http__get",
  readOnly: true,
  description: "GET an http(s) URL: {status, ok, headers, body} (JSON bodies parsed; headers may hold ${secret:KEY})",
  args: Args,
  async run(args, context) {
    const url = substituteValues(args.url, context.secrets);
    const headers = Object.fromEntries(
      Object.entries(args.headers ?? {}).map(([name, value]) => [name, substituteValues(value, context.secrets)]),
    );
    let response: Response;
    try {
      response = await fetch(url, {
        headers,
        redirect: "follow",
        signal: AbortSignal.any([context.signal, AbortSignal.timeout(context.timeoutMs)]),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      const why =
        (error as Error).name === "TimeoutError"
          ? `no answer within ${context.timeoutMs / 1000}s`
          : (error as Error).message;
      throw new ToolError(`GET ${args.url} failed: ${why}${cause ? ` (${cause})` : ""}`);
    }
    const raw = await response.text();
    const text = raw.length > BODY_CAP ? raw.slice(0, BODY_CAP) : raw;
    let body: unknown = text;
    if (raw.length <= BODY_CAP && /json/i.test(response.headers.get("content-type") ?? "")) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = text;
      }
    }
    return {
      status: response.status,
      ok: response.ok,
      headers: Object.fromEntries(response.headers),
      body,
      ...(raw.length > BODY_CAP ? { bodyTruncated: true } : {}),
    };
  },
};
