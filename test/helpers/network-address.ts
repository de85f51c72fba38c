/**
 * This machine's first non-loopback IPv4 address: a server listening there stands for one on the
 * network (a check any host may run reads it; it is not loopback, which each host reads as its own).
 */
import { networkInterfaces } from "node:os";

export function networkAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === "IPv4");
  if (!found) throw new Error("Expected a non-loopback IPv4 interface to listen on, got none");
  return found.address;
}
