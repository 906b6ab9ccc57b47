// A fake HostsApi for tests: one host from ~/.ssh/config that answers, one
// added by hand that does not.

import type { HostHealth, HostsApi, HostView, ProjectHost } from "./api";

const up: HostHealth = {
  host: "build",
  reachable: true,
  os: "linux",
  arch: "amd64",
  git: "2.39.5",
  agents: { node: "v20.20.2", npm: "11.19.1", claude: "2.1.330 (Claude Code)" },
  freeBytes: 64 * (1 << 30),
  latencyMs: 42,
};

export function createFakeHostsApi(): HostsApi & { calls: string[] } {
  const calls: string[] = [];
  let hosts: HostView[] = [
    {
      name: "build",
      fromConfig: true,
      added: false,
      config: { alias: "build", hostName: "build.example.com", user: "dev", port: "", proxyJump: "bastion" },
      health: null,
      checkedAt: 0,
    },
  ];
  const ph: Record<string, ProjectHost> = {};
  return {
    calls,
    list: async () => hosts.map((h) => ({ ...h })),
    add: async (name) => {
      calls.push(`add ${name}`);
      if (name.startsWith("-")) throw new Error(`invalid host name: "${name}" starts with '-'`);
      const h: HostView = { name, fromConfig: false, added: true, config: { alias: "", hostName: "", user: "", port: "", proxyJump: "" }, health: null, checkedAt: 0 };
      hosts = [...hosts, h];
      return h;
    },
    remove: async (name) => {
      calls.push(`remove ${name}`);
      hosts = hosts.filter((h) => h.name !== name);
    },
    check: async (name) => {
      calls.push(`check ${name}`);
      const health: HostHealth =
        name === "build"
          ? { ...up, host: name }
          : { host: name, reachable: false, error: "host unreachable: ssh: Could not resolve hostname", os: "", arch: "", git: "", agents: {}, freeBytes: 0, latencyMs: 5 };
      hosts = hosts.map((h) => (h.name === name ? { ...h, health, checkedAt: Date.now() } : h));
      return health;
    },
    agents: async () => [
      { command: "claude", name: "Claude Code", package: "@anthropic-ai/claude-code@2.1.330" },
      { command: "opencode", name: "OpenCode", package: "opencode-ai@1.18.33" },
    ],
    install: async (host, command) => {
      calls.push(`install ${host} ${command}`);
      return "added 1 package";
    },
    projectHost: async (id) => ph[id] ?? { projectId: id, host: "", path: "" },
    setProjectHost: async (id, host, path) => {
      calls.push(`set ${id} ${host} ${path}`);
      ph[id] = { projectId: id, host, path };
      return ph[id];
    },
  };
}
