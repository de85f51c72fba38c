// A small keep-alive HTTP client: POST JSON, resolve with status and latency (the ingest load
// itself comes from autocannon, bench/ingest-client.js).
import http from "node:http";

export function poster(url, { connections = 32 } = {}) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const post = (body) =>
    new Promise((resolve, reject) => {
      const payload = typeof body === "string" ? body : JSON.stringify(body);
      const started = performance.now();
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode, ms: performance.now() - started }));
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  return { post, close: () => agent.destroy() };
}
