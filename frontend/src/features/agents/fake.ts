// A fake AgentsApi for tests and demos: in-memory agents, a scripted
// install that streams progress lines, and settings masked like the Go side.

import { isSecretKey, looksSecretValue, type AgentSettings, type AgentView, type AgentsApi, type Progress } from "./api";

const CAPS = { resume: true, fork: false, interrupt: true, setMode: true, setModel: true, compaction: false, questions: true, permissions: true };
const MASK = "••••••••";

function settings(): AgentSettings {
  return { binaryPath: "", extraArgs: [], env: {}, defaultModel: "", defaultMode: "" };
}

export function fakeAgents(): AgentView[] {
  return [
    {
      backend: "claude-code", displayName: "Claude Code", command: "claude", package: "@anthropic-ai/claude-code", pinned: "2.1.330",
      probe: "claude", found: true, path: "/usr/local/bin/claude", source: "path", version: "2.1.330 (Claude Code)",
      registered: true, capabilities: CAPS, settings: settings(),
    },
    {
      backend: "opencode", displayName: "OpenCode", command: "opencode", package: "opencode-ai", pinned: "1.18.33",
      probe: "opencode", found: false, error: "OpenCode not found (opencode is not on PATH nor installed by the app): agent binary not found",
      registered: true, capabilities: CAPS, settings: settings(),
    },
    {
      backend: "acp.block.goose", displayName: "Goose (ACP)", command: "goose", probe: "acp", found: false,
      error: "Goose (ACP) not found", registered: true, capabilities: { ...CAPS, resume: false }, settings: settings(),
    },
  ];
}

export interface FakeAgentsApi extends AgentsApi {
  agents: AgentView[];
  stored: Record<string, AgentSettings>;
  /** failInstall makes the next install fail with this npm log. */
  failInstall?: string;
}

export function createFakeAgentsApi(agents = fakeAgents()): FakeAgentsApi {
  const subs = new Set<(p: Progress) => void>();
  const emit = (p: Progress) => subs.forEach((cb) => cb(p));
  const find = (b: string) => {
    const a = api.agents.find((x) => x.backend === b);
    if (!a) throw new Error(`unknown agent "${b}"`);
    return a;
  };
  const masked = (s: AgentSettings): AgentSettings => ({
    ...s,
    env: Object.fromEntries(Object.entries(s.env).map(([k, v]) => [k, (isSecretKey(k) || looksSecretValue(v) || (s.secrets ?? []).includes(k)) && v ? MASK : v])),
  });
  const api: FakeAgentsApi = {
    agents,
    stored: {},
    list: async () => api.agents.map((a) => ({ ...a })),
    health: async (b) => {
      const a = find(b);
      return a.found
        ? { backend: b, ok: true, detail: "initialize answered (5 models, 44 commands)", durationMs: 2400 }
        : { backend: b, ok: false, detail: a.error ?? "not found", durationMs: 0 };
    },
    latest: async (b) => {
      const a = find(b);
      if (!a.package) throw new Error("not on npm");
      return a.backend === "claude-code" ? "2.2.0" : a.pinned ?? "1.0.0";
    },
    install: async (b, v) => {
      const a = find(b);
      const version = v || a.pinned || "1.0.0";
      for (const [i, line] of [`npm http fetch GET 200 https://registry.npmjs.org/${a.package} 80ms`, "npm http fetch GET 200 tarball 900ms"].entries()) {
        await new Promise((r) => setTimeout(r, 5));
        emit({ backend: b, line, fetched: i + 1, done: false });
      }
      if (api.failInstall) {
        const log = api.failInstall;
        api.failInstall = undefined;
        emit({ backend: b, line: "", fetched: 2, done: true, error: "npm install failed: exit status 1" });
        return { ok: false, error: `npm install ${a.package} failed: exit status 1`, log, agent: { ...a } };
      }
      Object.assign(a, { found: true, source: "app", appInstalled: version, version, error: undefined,
        path: `/home/me/.config/jean-claude/agents/node_modules/.bin/${a.command}` });
      emit({ backend: b, line: "", fetched: 2, done: true });
      return { ok: true, log: "added 3 packages", agent: { ...a } };
    },
    uninstall: async (b) => {
      const a = find(b);
      Object.assign(a, { found: false, source: "", appInstalled: undefined, version: undefined, path: undefined, error: "not found" });
      return { ok: true, log: "removed 3 packages", agent: { ...a } };
    },
    saveSettings: async (b, s) => {
      const a = find(b);
      const old = api.stored[b]?.env ?? {};
      const env = Object.fromEntries(Object.entries(s.env).map(([k, v]) => [k, v === MASK ? old[k] ?? "" : v]));
      api.stored[b] = { ...s, env };
      a.settings = masked(api.stored[b]);
      return { ...a };
    },
    onProgress: (cb) => {
      subs.add(cb);
      return () => subs.delete(cb);
    },
  };
  return api;
}
