import { describe, expect, test } from "vitest";
import { isLoopbackHost, privateHostKind, privateKindOf, privateResolution } from "./private-address.js";

const hostOf = (url: string) => new URL(url).hostname;

describe("address classification", () => {
  test.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["169.254.169.254", "link-local"],
    ["fe80::1", "link-local"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["fd12:3456::1", "private"],
    ["fc00::1", "private"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["100.100.1.1", "private (shared address space)"],
    ["::ffff:10.0.0.1", "private"],
  ])("%s is %s", (ip, kind) => {
    expect(privateKindOf(ip)).toBe(kind);
  });

  test.each(["8.8.8.8", "172.32.0.1", "192.169.0.1", "140.82.112.6", "2606:4700::1111", "example.com"])(
    "%s is public (or a name only a lookup can tell)",
    (ip) => {
      expect(privateKindOf(ip)).toBeNull();
    },
  );

  test.each([
    ["http://localhost:8080/", "loopback"],
    ["http://LOCALHOST./", "loopback"],
    ["http://app.localhost/", "loopback"],
    ["http://[::1]:3000/", "loopback"],
    ["http://[::ffff:127.0.0.1]/", "loopback"],
    ["http://0x7f000001/", "loopback"],
    ["http://2130706433/", "loopback"],
    ["http://127.1/", "loopback"],
    ["http://[fe80::1]/", "link-local"],
    ["http://0.0.0.0:80/", "unspecified"],
    ["https://api.github.com/", null],
  ])("the hostname of %s as written: %s", (url, kind) => {
    expect(privateHostKind(hostOf(url))).toBe(kind);
  });

  test("loopback for the https-only rule: 127/8, ::1 and localhost; not a private LAN address", () => {
    expect(["http://127.0.0.1:1/", "http://localhost/", "http://[::1]/"].map((u) => isLoopbackHost(hostOf(u)))).toEqual(
      [true, true, true],
    );
    expect(["http://10.0.0.1/", "http://api.github.com/"].map((u) => isLoopbackHost(hostOf(u)))).toEqual([
      false,
      false,
    ]);
  });

  test("a name is judged by every address it resolves to: one private address is enough", async () => {
    const dns = async (host: string) =>
      ({ "public.example": ["93.184.215.14", "2606:2800::1"], "mixed.example": ["93.184.215.14", "10.0.0.7"] })[host] ??
      [];
    expect(await privateResolution("127.0.0.1", dns)).toBe("127.0.0.1 (loopback)");
    expect(await privateResolution("localhost", dns)).toBe("localhost (loopback)");
    expect(await privateResolution("public.example", dns)).toBeNull();
    expect(await privateResolution("mixed.example", dns)).toBe("10.0.0.7 (private)");
    expect(await privateResolution("93.184.215.14", dns)).toBeNull();
  });
});
