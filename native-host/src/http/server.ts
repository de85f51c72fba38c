/**
 * The HTTP API (design.md §7, §8, §11): node:http with find-my-way for routing, zod on every body,
 * served twice from one route table:
 * - on the owner-only Unix socket `$VIGIL_HOME/api.sock` (0600 in the 0700 home): every route, no
 *   token — the file's permissions are the authentication, as with ssh-agent and docker.sock;
 * - on TCP 127.0.0.1: the public routes (`/healthz`, `/webhook/signal`) only, unless the `tcpApi`
 *   setting opts in to the rest with the bearer token.
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import FindMyWay from "find-my-way";
import type { z } from "zod";
import { ROUTES, type RouteName, type RouteSpec, routeText } from "../../../shared/api-routes.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";
import { toError } from "../base/log.js";
import { unreachableText } from "../store/unreachable.js";
import { HttpError, readJson, sendJson } from "./json-io.js";
import { registerNotifyRoutes } from "./notify-routes.js";
import type { ApiServices, Handler, RouteContext, Routes } from "./route-context.js";
import { registerRoutes } from "./routes.js";
import { errorBody, statusOf } from "./status.js";

const DEFAULT_BODY_LIMIT = 1_000_000;
const METHODS = ["GET", "POST", "PATCH", "PUT", "DELETE"] as const;
/** `application/json`, or any `application/…+json`, with parameters. */
const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

interface Stored {
  handler: Handler;
  spec: RouteSpec;
}

/** The disk is full, or the database cannot be written: a 503 that says so (the transaction rolled back). */
const STORAGE_CODES = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY)/;

/** The `Retry-After` of a storage 503: a PostgreSQL restart takes seconds. */
const STORAGE_RETRY_AFTER_SECONDS = "2";

export function storageError(thrown: unknown, method = "POST"): HttpError | null {
  const unreachable = unreachableText(thrown);
  if (unreachable !== null) {
    const outcome = method === "GET" ? "try again shortly" : "nothing was stored — try again shortly";
    return new HttpError(503, `${unreachable}; ${outcome}`);
  }
  const code = (thrown as { code?: unknown })?.code;
  if (typeof code !== "string" || !STORAGE_CODES.test(code)) return null;
  return new HttpError(
    503,
    `Storage unavailable (${code}: ${(thrown as Error).message}); nothing was stored — try again when space returns`,
  );
}

/**
 * What one client may hold: headers must arrive within `headersTimeoutMs` and the whole request
 * within `requestTimeoutMs` (a slow client is answered 408 and closed; answers, long-polls included,
 * are not limited), and at most `maxConnections` sockets are open at once (more are closed on
 * arrival). Loopback clients send a request in microseconds, so these only bind on a hostile one.
 */
export interface HttpLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
}

export const HTTP_LIMITS: HttpLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 256 };

/**
 * What one request's handler sees. A class rather than an object literal with a getter: V8 builds
 * such a literal in dictionary mode with an accessor pair allocated in the old generation, which
 * points at the getter's closure and through it at the request, its response and whatever the
 * handler had in flight — so every request survived each young collection until the next full one
 * (measured under signal load: 1.9–2.5 MB promoted per scavenge, 6–17 ms pauses; as a class,
 * 10–80 KB survive and a scavenge takes 1–2 ms). `bench/signals.js` shows the effect on the p99.
 */
class RequestContext implements RouteContext {
  #gone: AbortController | undefined;

  constructor(
    readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly params: Record<string, string | undefined>,
    readonly query: Record<string, string | undefined>,
  ) {}

  /** Made on first use: only long-polls need to know that the client went away. */
  get signal(): AbortSignal {
    if (!this.#gone) {
      const controller = new AbortController();
      this.res.once("close", () => controller.abort());
      this.#gone = controller;
    }
    return this.#gone.signal;
  }

  async body<T>(schema: z.ZodType<T>, limitBytes = DEFAULT_BODY_LIMIT): Promise<T> {
    // A form or text/plain body is what a web page can send without asking: refused unread.
    const type = this.req.headers["content-type"];
    if (type !== undefined && !JSON_TYPE.test(type)) {
      throw new HttpError(415, `Expected content-type: application/json, got ${JSON.stringify(type.slice(0, 100))}`);
    }
    const raw = await readJson(this.req, limitBytes);
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw new HttpError(400, formatZodError(parsed.error));
    return parsed.data;
  }
}

/** Which of the two listeners a server is (see the header). */
export type Transport = "unix" | "tcp";

export const TCP_API_OFF =
  "This route is served on the owner-only Unix socket $VIGIL_HOME/api.sock (the vigil CLI uses it), not on TCP; set tcpApi: true in settings.json (or VIGIL_TCP_API=1) to serve it here with the bearer token";

export function createApiServer(options: {
  services: ApiServices;
  token: string;
  limits?: Partial<HttpLimits>;
  /** Default "tcp". */
  transport?: Transport;
  /** On TCP, the non-public routes too (with the token). Default false. */
  tcpApi?: boolean;
}): Server {
  const limits = { ...HTTP_LIMITS, ...options.limits };
  const overSocket = options.transport === "unix";
  const tcpApi = options.tcpApi === true;
  const { services } = options;
  const router = FindMyWay({ ignoreTrailingSlash: true });
  const registered = new Set<RouteName>();
  const routes: Routes = {
    on(name, handler) {
      if (registered.has(name)) throw new Error(`Route ${name} registered twice`);
      registered.add(name);
      const spec: RouteSpec = ROUTES[name];
      router.on(spec.method, spec.path, () => undefined, { handler, spec } satisfies Stored);
    },
  };
  registerRoutes(routes, services);
  registerNotifyRoutes(routes, services);
  const missing = (Object.keys(ROUTES) as RouteName[]).filter((name) => !registered.has(name));
  if (missing.length > 0) throw new Error(`Routes without a handler: ${missing.join(", ")}`);
  const expected = Buffer.from(options.token);

  /** `Authorization: Bearer TOKEN`, the scheme in any case (RFC 9110 §11.1); the token compared in constant time. */
  const authorised = (req: IncomingMessage) => {
    const match = /^bearer +(\S+) *$/i.exec(req.headers.authorization ?? "");
    const given = Buffer.from(match?.[1] ?? "");
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  /**
   * Only this machine's own names for the daemon: a page on a rebinding domain sends its own Host.
   * Worked out once per listen (`server.address()` is a system call; it cost 3 % of the daemon's
   * CPU under signal load when asked per request).
   */
  let ownHosts: readonly string[] | null = null;
  const hostAllowed = (host: string | undefined) => {
    if (ownHosts === null) {
      const port = (server.address() as AddressInfo | null)?.port;
      if (port === undefined) return false;
      ownHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
    }
    return ownHosts.includes((host ?? "").toLowerCase());
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    // DNS rebinding and cross-site requests: Vigil's own clients send a loopback Host and no Origin.
    // (No browser reaches a Unix socket; its clients send any Host.)
    if (!overSocket && !hostAllowed(req.headers.host)) {
      throw new HttpError(
        421,
        `Expected Host 127.0.0.1:PORT or localhost:PORT, got ${JSON.stringify(req.headers.host ?? "")}`,
      );
    }
    if (req.headers.origin !== undefined) {
      throw new HttpError(403, `Requests from web pages are refused (Origin ${JSON.stringify(req.headers.origin)})`);
    }
    // The path as sent (find-my-way decodes parameters itself); the query only when there is one.
    const raw = req.url ?? "/";
    const mark = raw.indexOf("?");
    const pathname = mark === -1 ? raw : raw.slice(0, mark);
    // HEAD is GET without the body (Node leaves the body out of a HEAD answer by itself).
    const found = router.find((req.method === "HEAD" ? "GET" : req.method) as "GET", pathname);
    if (!found) {
      const allowed: string[] = METHODS.filter((m) => router.find(m, pathname));
      if (allowed.includes("GET")) allowed.push("HEAD");
      if (allowed.length === 0) throw new HttpError(404, `No route ${pathname}`);
      res.setHeader("allow", allowed.join(", "));
      throw new HttpError(405, `Expected ${allowed.join(", ")} on ${pathname}, got ${req.method}`);
    }
    const stored = found.store as Stored;
    if (!stored.spec.public && !overSocket && !tcpApi) throw new HttpError(403, TCP_API_OFF);
    if (!stored.spec.public && !overSocket && !authorised(req)) {
      res.setHeader("www-authenticate", "Bearer");
      throw new HttpError(401, "Expected Authorization: Bearer <token from $VIGIL_HOME/token>");
    }
    // Team mode: a write about a session is its host's to take (one check for every such route).
    const { sid } = found.params;
    if (stored.spec.sessionHost && sid !== undefined)
      await services.engine.checkSessionHost(sid, routeText(stored.spec));
    const query = mark === -1 ? {} : Object.fromEntries(new URLSearchParams(raw.slice(mark + 1)));
    const context = new RequestContext(req, res, found.params, query);
    const reply = await stored.handler(context);
    sendJson(res, reply.status, reply.body, reply.headers);
  }

  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often Node looks for expired requests (its default, 30 s, would stretch the limits).
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
    (req, res) => {
      handle(req, res).catch((thrown: unknown) => {
        const storage = storageError(thrown, req.method);
        const error = storage ?? toError(thrown);
        const status = statusOf(error);
        // A 503 is an answer the caller can act on (no browser, storage full): one line, no stack.
        if (status === 503) services.log.warn(`${req.method} ${req.url}: ${error.message}`);
        else if (status >= 500) services.log.error(`${req.method} ${req.url} failed: ${error.stack ?? error.message}`);
        const message = services.shield.text(status === 500 ? `Internal error: ${error.message}` : error.message);
        // Storage away (a database restart, a full disk): nothing was stored, ask again shortly.
        const retry: Record<string, string> = storage ? { "retry-after": STORAGE_RETRY_AFTER_SECONDS } : {};
        if (!res.headersSent) sendJson(res, status, errorBody(status, message), retry);
        else res.end();
      });
    },
  );
  server.on("listening", () => {
    ownHosts = null;
  });
  // The connection budget protects the TCP side from other users; the socket has only the owner.
  if (!overSocket) server.maxConnections = limits.maxConnections;
  return server;
}
