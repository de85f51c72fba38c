/** A local JSON endpoint whose answer a test changes: the "CI run" a tool monitor watches. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export async function jsonServer(initial: unknown) {
  let body = initial;
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/run`,
    set: (next: unknown) => {
      body = next;
    },
    hits: () => hits,
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}
