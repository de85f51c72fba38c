// A small keep-alive HTTP client for load: POST JSON, resolve with status and latency.
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

/** Keeps `connections` requests in flight for `seconds`; returns per-request latencies and statuses. */
export async function load(url, makeBody, { seconds = 5, connections = 32 } = {}) {
  const client = poster(url, { connections });
  const latencies = [];
  const statuses = new Map();
  const until = performance.now() + seconds * 1000;
  let i = 0;
  const worker = async () => {
    while (performance.now() < until) {
      const { status, ms } = await client.post(makeBody(i++));
      latencies.push(ms);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  client.close();
  return { latencies, statuses, perSecond: latencies.length / elapsed };
}
