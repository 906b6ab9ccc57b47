// AgentsApi is the Agents page's door to the Go AgentService. The screen
// takes it as a prop (or uses wailsAgentsApi()), so tests and the e2e page
// supply fakes. wailsAgentsApi goes through the generated bindings, wrapped
// in bridge/bound.ts.

import type { Capabilities } from "../../bridge/types";
import { call as bridgeCall, onEvent } from "../../bridge/bound";
import * as AgentService from "../../bridge/wailsjs/go/services/AgentService";

export type Source = "settings" | "path" | "app" | "";
export type Mode = "" | "ask" | "accept-edits" | "plan" | "bypass";

export interface AgentSettings {
  binaryPath: string;
  extraArgs: string[];
  /** Values of secret-looking keys come back masked ("••••••••"); sending the mask back keeps the stored value. */
  env: Record<string, string>;
  defaultModel: string;
  defaultMode: Mode;
  /** Env names the user marked secret (values looking like credentials are secret anyway). */
  secrets?: string[];
  /** Keeps Jean-Claude's MCP server (progress, questions, sub-tasks) from this agent's sessions. */
  disableMcp?: boolean;
}

export interface AgentView {
  backend: string;
  displayName: string;
  command: string;
  args?: string[];
  package?: string;
  pinned?: string;
  probe: "claude" | "opencode" | "acp" | "codex" | "version";
  found: boolean;
  path?: string;
  source?: Source;
  version?: string;
  error?: string;
  appInstalled?: string;
  registered: boolean;
  capabilities: Capabilities;
  notes?: string;
  settings: AgentSettings;
  /** How the agent signs in: its login command's args, the API key's variable. */
  signIn?: { args?: string[] | null; keyVar?: string };
  /** "signed-in" | "not-signed-in" | "" (cannot tell). */
  signedIn?: string;
}

export interface Health {
  backend: string;
  ok: boolean;
  detail: string;
  durationMs: number;
  /** installed, not signed in */
  notSignedIn?: boolean;
}

export interface InstallResult {
  ok: boolean;
  error?: string;
  log: string;
  agent: AgentView;
}

/** Progress is one "agents:install-progress" event: an npm output line. */
export interface Progress {
  backend: string;
  line: string;
  fetched: number;
  done: boolean;
  error?: string;
}

export interface AgentsApi {
  list(): Promise<AgentView[]>;
  /** lastKnown is the state the last list() found, at once (optional: older backends). */
  lastKnown?(): Promise<AgentView[]>;
  /** secretsNote says where secrets are kept when no keyring runs ("" with a keyring). */
  secretsNote?(): Promise<string>;
  health(backend: string): Promise<Health>;
  /** latest is the newest version on npm; it rejects when npm cannot tell. */
  latest(backend: string): Promise<string>;
  install(backend: string, version: string): Promise<InstallResult>;
  uninstall(backend: string): Promise<InstallResult>;
  saveSettings(backend: string, s: AgentSettings): Promise<AgentView>;
  /** onProgress subscribes to "agents:install-progress"; returns the unsubscribe. */
  onProgress(cb: (p: Progress) => void): () => void;
}

function call<T>(method: keyof typeof AgentService, ...args: unknown[]): Promise<T> {
  return bridgeCall<T>(AgentService[method], `AgentService.${method}`, ...args);
}

export function wailsAgentsApi(): AgentsApi {
  return {
    list: async () => (await call<AgentView[] | null>("List")) ?? [],
    lastKnown: async () => (await call<AgentView[] | null>("LastKnown")) ?? [],
    secretsNote: () => call<string>("SecretsNote"),
    health: (b) => call<Health>("Health", b),
    latest: (b) => call<string>("LatestVersion", b),
    install: (b, v) => call<InstallResult>("Install", b, v),
    uninstall: (b) => call<InstallResult>("Uninstall", b),
    saveSettings: (b, s) => call<AgentView>("SaveSettings", b, s),
    onProgress: (cb) => onEvent<Progress>("agents:install-progress", cb),
  };
}

/** isNewer reports whether version a is newer than b (numeric x.y.z compare; unknown → false). */
export function isNewer(a: string | undefined, b: string | undefined): boolean {
  const parse = (v?: string) => (v ?? "").match(/(\d+)\.(\d+)\.(\d+)/)?.slice(1).map(Number);
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return false;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return false;
}

/** envText shows env as KEY=VALUE lines; parseEnv reads them back (blank lines and # comments skipped). */
export function envText(env: Record<string, string>): string {
  return Object.keys(env)
    .sort()
    .map((k) => `${k}=${env[k]}`)
    .join("\n");
}

export function parseEnv(text: string): { env: Record<string, string>; error?: string } {
  const env: Record<string, string> = {};
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) return { env, error: `line ${i + 1}: expected KEY=VALUE` };
    const key = line.slice(0, eq).trim();
    if (/\s/.test(key)) return { env, error: `line ${i + 1}: bad variable name "${key}"` };
    env[key] = line.slice(eq + 1);
  }
  return { env };
}

/** looksSecretValue mirrors secrets.ValueLooksSecret: a URL with a password or a known token format. */
export function looksSecretValue(v: string): boolean {
  if (/:\/\/[^/@\s:]*:[^/@\s]+@/.test(v)) return true;
  return /(^|[^A-Za-z0-9])(gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{8,}|(AKIA|ASIA)[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{16,})/.test(v);
}

/** isSecretKey mirrors agentmgr.IsSecretKey: such values are masked. */
export function isSecretKey(k: string): boolean {
  return /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE)/i.test(k);
}
