// HostsApi is the Hosts page's door to the Go HostService (issue 21): SSH
// hosts from ~/.ssh/config and added by hand, their health, agent CLIs
// installed on them, and where a project lives. Tests and the e2e page
// pass fakes (fake.ts).

import { call as bridgeCall } from "../../bridge/bound";
import * as HostService from "../../bridge/wailsjs/go/services/HostService";

export interface HostHealth {
  host: string;
  reachable: boolean;
  error?: string;
  os: string;
  arch: string;
  git: string;
  agents: Record<string, string>;
  freeBytes: number;
  latencyMs: number;
}

export interface HostView {
  name: string;
  fromConfig: boolean;
  added: boolean;
  config: { alias: string; hostName: string; user: string; port: string; proxyJump: string };
  health: HostHealth | null;
  checkedAt: number;
}

export interface HostAgent {
  command: string;
  name: string;
  package: string;
}

export interface ProjectHost {
  projectId: string;
  host: string;
  path: string;
}

export interface HostsApi {
  list(): Promise<HostView[]>;
  add(name: string): Promise<HostView>;
  remove(name: string): Promise<void>;
  check(name: string): Promise<HostHealth>;
  agents(): Promise<HostAgent[]>;
  install(host: string, command: string): Promise<string>;
  projectHost(projectId: string): Promise<ProjectHost>;
  setProjectHost(projectId: string, host: string, path: string): Promise<ProjectHost>;
}

function call<T>(method: keyof typeof HostService, ...args: unknown[]): Promise<T> {
  return bridgeCall<T>(HostService[method], `HostService.${method}`, ...args);
}

export function wailsHostsApi(): HostsApi {
  return {
    list: async () => (await call<HostView[] | null>("ListHosts")) ?? [],
    add: (n) => call<HostView>("AddHost", n),
    remove: (n) => call<void>("RemoveHost", n),
    check: (n) => call<HostHealth>("CheckHost", n),
    agents: async () => (await call<HostAgent[] | null>("HostAgents")) ?? [],
    install: (h, c) => call<string>("InstallAgent", h, c),
    projectHost: (p) => call<ProjectHost>("ProjectHost", p),
    setProjectHost: (p, h, d) => call<ProjectHost>("SetProjectHost", p, h, d),
  };
}

/** bytes formats a byte count as GB/MB. */
export function bytes(n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(1)} GB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(0)} MB`;
  return `${n} B`;
}
