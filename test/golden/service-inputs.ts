/**
 * The fixed inputs the service's golden files in this folder are rendered from
 * (native-host/src/install/service-files.test.ts compares them; test/integration/service-files.test.ts
 * has systemd-analyze and xmllint check them).
 */
import type { ServiceSpec } from "../../native-host/src/install/service-spec.js";

export const GOLDEN_SPEC: ServiceSpec = {
  node: "/usr/local/bin/node",
  script: "/usr/local/lib/node_modules/vigil/bin/vigil.js",
  home: "/home/ada/vigil home",
  path: "/home/ada/.local/bin:/usr/local/bin:/usr/bin:/bin",
  env: [
    { name: "ANTHROPIC_API_KEY", value: "sk-ant-golden" },
    { name: "OPENAI_API_KEY", value: 'sk-"quoted"-$HOME-`x`-\\' },
  ],
};
export const GOLDEN_SYSTEMD = {
  unit: "/home/ada/.config/systemd/user/vigil.service",
  envFile: "/home/ada/.config/vigil/service.env",
};
export const GOLDEN_LAUNCHD = {
  plist: "/Users/ada/Library/LaunchAgents/vigil.daemon.plist",
  log: "/Users/ada/Library/Logs/vigil.log",
};
