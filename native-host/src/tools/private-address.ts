/**
 * Which addresses reach only the machine, or the network, of the host that sends a request:
 * loopback, link-local, private and unspecified ones, and the names that mean them (`localhost`).
 * A host-free `http__get` never goes there (another host of the team would read what only one
 * host reaches), and a GitHub token goes in clear text only to loopback (tests).
 * Design: docs/design.md §8, §9.1.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** [address, prefix, what] for IPv4; each also blocked in its IPv4-mapped IPv6 form (::ffff:a.b.c.d). */
const IPV4_RANGES: Array<[string, number, string]> = [
  ["0.0.0.0", 8, "unspecified"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["10.0.0.0", 8, "private"],
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
  ["100.64.0.0", 10, "private (shared address space)"],
];
const IPV6_RANGES: Array<[string, number, string]> = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["fe80::", 10, "link-local"],
  ["fc00::", 7, "private"],
  ["fec0::", 10, "private (site-local)"],
];

const ranges = IPV4_RANGES.map(([address, prefix, what]) => {
  const v4 = new BlockList();
  v4.addSubnet(address, prefix, "ipv4");
  const mapped = new BlockList();
  mapped.addSubnet(`::ffff:${address}`, 96 + prefix, "ipv6");
  return {
    what,
    matches: (ip: string, family: 4 | 6) => (family === 4 ? v4.check(ip, "ipv4") : mapped.check(ip, "ipv6")),
  };
}).concat(
  IPV6_RANGES.map(([address, prefix, what]) => {
    const v6 = new BlockList();
    v6.addSubnet(address, prefix, "ipv6");
    return { what, matches: (ip: string, family: 4 | 6) => family === 6 && v6.check(ip, "ipv6") };
  }),
);

/** "loopback", "link-local", "private…" or "unspecified" for such an IP address; null for a public one or a name. */
export function privateKindOf(ip: string): string | null {
  const family = isIP(ip);
  if (family === 0) return null;
  return ranges.find((range) => range.matches(ip, family as 4 | 6))?.what ?? null;
}

/** A URL's hostname without IPv6 brackets or a final dot: `[::1]` → `::1`, `localhost.` → `localhost`. */
export const bareHost = (hostname: string): string =>
  hostname
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "")
    .toLowerCase();

const isLocalhostName = (host: string): boolean => host === "localhost" || host.endsWith(".localhost");

/** Whether a URL's hostname is loopback as written: 127/8, ::1, `localhost` (no lookup). */
export function isLoopbackHost(hostname: string): boolean {
  const host = bareHost(hostname);
  return isLocalhostName(host) || privateKindOf(host) === "loopback";
}

/**
 * What a URL's hostname means as written, when it reaches only one machine or network: a loopback,
 * link-local, private or unspecified address, or `localhost`; null when only a lookup can tell.
 */
export function privateHostKind(hostname: string): string | null {
  const host = bareHost(hostname);
  return isLocalhostName(host) ? "loopback" : privateKindOf(host);
}

/**
 * The first private address `hostname` means on this machine (as written, else as this machine
 * resolves it), as "127.0.0.1 (loopback)"; null when every address it resolves to is public.
 */
export async function privateResolution(hostname: string, resolve = resolveAll): Promise<string | null> {
  const host = bareHost(hostname);
  const written = privateHostKind(host);
  if (written) return `${host} (${written})`;
  if (isIP(host)) return null;
  for (const address of await resolve(host)) {
    const kind = privateKindOf(address);
    if (kind) return `${address} (${kind})`;
  }
  return null;
}

/** Every address this machine resolves a name to (as fetch would connect to one of them). */
async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((found) => found.address);
}
