import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, test, vi } from "vitest";
import { httpGet } from "./http-get.js";
import { BODY_CAP, type ToolContext, ToolError } from "./tool.js";

const SECRET = "s3cr3t-value";

const servers: Server[] = [];

/** A local server on its own port: a separate origin. Returns its origin, `http://127.0.0.1:PORT`. */
async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          server.close(resolve);
          server.closeAllConnections();
        }),
    ),
  );
});

const context = (timeoutMs = 5000, signal = new AbortController().signal): ToolContext => ({
  signal,
  timeoutMs,
  secrets: new Map([["KEY", SECRET]]),
});

/** The ToolError a run ends with; no secret value may be in it. */
async function failure(run: Promise<unknown>): Promise<ToolError> {
  const error = await run.then(
    () => expect.unreachable("expected the call to fail"),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolError);
  expect((error as Error).message).not.toContain(SECRET);
  return error as ToolError;
}

/** Settles when the server's response closes: true if it had finished, false if the client went away first. */
function closeOf(res: Parameters<RequestListener>[1]): Promise<boolean> {
  return new Promise((resolve) => res.on("close", () => resolve(res.writableFinished)));
}

const SECRET_HEADERS = {
  Authorization: "Bearer ${secret:KEY}",
  cookie: "session=abc",
  "proxy-authorization": "Basic cHJveHk=",
  "x-api-key": "${secret:KEY}",
  "x-plain": "1",
};

describe("http__get redirects", () => {
  test("a same-origin redirect keeps every header and reports the final URL", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const origin = await serve((req, res) => {
      if (req.url === "/start") return void res.writeHead(302, { location: "final" }).end();
      seen.push(req.headers);
      res.writeHead(200, { "content-type": "application/json" }).end('{"status":"done"}');
    });
    const result = await httpGet.run({ url: `${origin}/start`, headers: SECRET_HEADERS }, context());
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      authorization: `Bearer ${SECRET}`,
      cookie: "session=abc",
      "x-api-key": SECRET,
      "x-plain": "1",
    });
    expect(result).toMatchObject({ status: 200, body: { status: "done" }, redirected: true, url: `${origin}/final` });
  });

  test("a cross-origin redirect drops Authorization, Cookie, Proxy-Authorization and secret headers", async () => {
    const first: IncomingHttpHeaders[] = [];
    const second: IncomingHttpHeaders[] = [];
    const other = await serve((req, res) => {
      second.push(req.headers);
      res.writeHead(200, { "content-type": "application/json" }).end('{"status":"done"}');
    });
    const origin = await serve((req, res) => {
      first.push(req.headers);
      res.writeHead(307, { location: `${other}/final` }).end();
    });
    const result = await httpGet.run({ url: `${origin}/start`, headers: SECRET_HEADERS }, context());
    expect(first[0]).toMatchObject({ authorization: `Bearer ${SECRET}`, "x-api-key": SECRET });
    expect(second).toHaveLength(1);
    const received = second[0]!;
    for (const name of ["authorization", "cookie", "proxy-authorization", "x-api-key"])
      expect(received[name], name).toBeUndefined();
    expect(received["x-plain"]).toBe("1");
    expect(JSON.stringify(received)).not.toContain(SECRET);
    expect(result).toMatchObject({ status: 200, body: { status: "done" }, redirected: true, url: `${other}/final` });
  });

  test("a redirect loop stops after 5 hops; the error names the URL as written", async () => {
    let hits = 0;
    const origin = await serve((_req, res) => {
      hits += 1;
      res.writeHead(302, { location: "/loop" }).end();
    });
    const url = `${origin}/loop?token=\${secret:KEY}`;
    const error = await failure(httpGet.run({ url }, context()));
    expect(error.message).toBe(`GET ${url} failed: more than 5 redirects`);
    expect(hits).toBe(6);
  });

  test("a redirect to a non-http(s) scheme is refused", async () => {
    const origin = await serve((_req, res) => void res.writeHead(301, { location: "file:///etc/passwd" }).end());
    const error = await failure(httpGet.run({ url: `${origin}/start` }, context()));
    expect(error.message).toBe(`GET ${origin}/start failed: redirected to a non-http(s) URL (file:)`);
  });
});

describe("http__get bodies", () => {
  test("a small JSON body is parsed; the result keeps its shape", async () => {
    const origin = await serve(
      (_req, res) =>
        void res
          .writeHead(200, { "content-type": "application/json; charset=utf-8" })
          .end('{"id":123,"status":"done"}'),
    );
    const result = (await httpGet.run({ url: `${origin}/run` }, context())) as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(["status", "ok", "headers", "body"]);
    expect(result).toMatchObject({
      status: 200,
      ok: true,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: { id: 123, status: "done" },
    });
  });

  test("an endless body is cut at the cap and the connection closed, never buffered", async () => {
    let closed!: Promise<boolean>;
    const origin = await serve((_req, res) => {
      closed = closeOf(res);
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(64 * 1024, "a");
      let sent = 0;
      const pump = () => {
        while (!res.destroyed) {
          // Endless for any client that cancels; the stop at 32 MB only keeps a client that buffers
          // everything from exhausting memory (it then sees the whole response, and the test fails).
          if (sent >= 32 * 1024 * 1024) return void res.end();
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
      };
      pump();
    });
    const result = (await httpGet.run({ url: `${origin}/endless` }, context())) as Record<string, unknown>;
    expect(result).toMatchObject({ status: 200, bodyTruncated: true });
    expect(result.body).toBe(`${"a".repeat(BODY_CAP)}…`);
    expect(await closed, "the client went away before the server finished").toBe(false);
  });

  test("the cap counts bytes and never splits a character; a JSON body over it stays text", async () => {
    const text = `"${"é".repeat(40_000)}"`; // 80,002 bytes of valid JSON
    const origin = await serve(
      (_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end(text),
    );
    const result = (await httpGet.run({ url: `${origin}/big` }, context())) as Record<string, unknown>;
    expect(result.bodyTruncated).toBe(true);
    // 1 + 2 × 32,767 = 65,535 bytes; the 65,536th is half an "é", left out; the cut is marked "…".
    // (Compared as a boolean: a failure would otherwise print 64 KB of "é".)
    expect(typeof result.body).toBe("string");
    expect((result.body as string).length).toBe(32_769);
    expect(result.body === `"${"é".repeat(32_767)}…`).toBe(true);
  });

  test("a body that trickles forever is aborted at the check's timeout", async () => {
    let closed!: Promise<boolean>;
    const origin = await serve((_req, res) => {
      closed = closeOf(res);
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("x");
      const timer = setInterval(() => res.write("x"), 1000);
      res.on("close", () => clearInterval(timer));
    });
    const error = await failure(httpGet.run({ url: `${origin}/slow` }, context(300)));
    expect(error.message).toBe(`GET ${origin}/slow failed: no answer within 0.3s`);
    expect(await closed).toBe(false);
  });

  test("the check's own signal aborts the body read too", async () => {
    const controller = new AbortController();
    let closed!: Promise<boolean>;
    const origin = await serve((_req, res) => {
      closed = closeOf(res);
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("x");
    });
    // Abort once the headers are in, so it is the body read that is cut short.
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (...call) => {
      const response = await realFetch(...call);
      controller.abort();
      return response;
    });
    const error = await failure(httpGet.run({ url: `${origin}/slow` }, context(5000, controller.signal)));
    expect(error.message).toMatch(new RegExp(`^GET ${origin}/slow failed: .*aborted`));
    expect(await closed).toBe(false);
  });
});

describe("http__get errors", () => {
  test("a refused connection keeps its message", async () => {
    const origin = await serve(() => {});
    const server = servers.pop()!;
    await new Promise((resolve) => server.close(resolve));
    const error = await failure(httpGet.run({ url: `${origin}/run` }, context()));
    expect(error.message).toBe(`GET ${origin}/run failed: fetch failed (ECONNREFUSED)`);
  });

  test("a URL that is invalid once its secret is in does not show the secret", async () => {
    const url = "http://127.0.0.1:${secret:KEY}/";
    const error = await failure(httpGet.run({ url }, context()));
    expect(error.message).toContain(`GET ${url} failed`);
  });
});
