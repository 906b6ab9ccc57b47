// HostsScreen: SSH hosts from ~/.ssh/config and added by hand, each with
// its last health check (reachable, OS/arch, git, agent CLIs and their
// versions, free disk), a button to check it again, and the agent CLIs the
// app can install there with the host's npm.

import { useCallback, useEffect, useState } from "react";
import { errorMessage } from "../../lib/errors";
import { Button, Field, FormError } from "../../lib/ui";
import { bytes, wailsHostsApi, type HostAgent, type HostView, type HostsApi } from "./api";
import "./hosts.css";

export function HostsScreen({ api }: { api?: HostsApi }) {
  const [a] = useState(() => api ?? wailsHostsApi());
  const [hosts, setHosts] = useState<HostView[] | null>(null);
  const [agents, setAgents] = useState<HostAgent[]>([]);
  const [name, setName] = useState("");
  const [error, setError] = useState("");

  const load = useCallback(async () => {
    try {
      setHosts(await a.list());
      setAgents(await a.agents());
    } catch (e) {
      setError(errorMessage(e));
    }
  }, [a]);
  useEffect(() => void load(), [load]);

  const add = async () => {
    setError("");
    try {
      await a.add(name.trim());
      setName("");
      await load();
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  return (
    <div className="jc-page" data-testid="hosts">
      <header className="jc-page__header">
        <div className="jc-page__eyebrow">Jean-Claude</div>
        <h1 className="jc-page__title">Hosts</h1>
        <p className="jc-hosts__lead">
          Run agents where the code is. Hosts come from your <code>~/.ssh/config</code> and from this list; connections use your
          own <code>ssh</code>, keys, agent and known_hosts.
        </p>
      </header>
      <form
        className="jc-hosts__add"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <Field label="Add a host" hint="An alias from ~/.ssh/config, a host name, or user@host">
          <input className="jc-input" value={name} onChange={(e) => setName(e.target.value)} placeholder="build-box" data-testid="host-name" />
        </Field>
        <Button type="submit" variant="primary" disabled={!name.trim()}>
          Add
        </Button>
      </form>
      <FormError error={error} />
      {hosts === null ? <p className="jc-meta">Reading ~/.ssh/config…</p> : null}
      {hosts?.length === 0 ? <p className="jc-meta">No hosts yet: add one above, or a Host entry to ~/.ssh/config.</p> : null}
      {hosts?.map((h) => (
        <HostCard key={h.name} api={a} host={h} agents={agents} onChange={() => void load()} />
      ))}
    </div>
  );
}

function HostCard({ api, host, agents, onChange }: { api: HostsApi; host: HostView; agents: HostAgent[]; onChange: () => void }) {
  const [busy, setBusy] = useState("");
  const [error, setError] = useState("");
  const [log, setLog] = useState("");
  const h = host.health;
  const run = async (what: string, fn: () => Promise<unknown>) => {
    setBusy(what);
    setError("");
    try {
      await fn();
      onChange();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy("");
    }
  };
  const where = [host.config.user && `${host.config.user}@`, host.config.hostName, host.config.port && `:${host.config.port}`].filter(Boolean).join("");
  return (
    <section className="jc-card jc-host" data-testid={`host-${host.name}`}>
      <div className="jc-host__head">
        <span className={`jc-host__dot jc-host__dot--${h ? (h.reachable ? "up" : "down") : "unknown"}`} />
        <h2 className="jc-card__title">{host.name}</h2>
        <span className="jc-meta">
          {host.fromConfig ? "~/.ssh/config" : "added by hand"}
          {where ? ` · ${where}` : ""}
          {host.config.proxyJump ? ` · via ${host.config.proxyJump}` : ""}
        </span>
        <span className="jc-host__spacer" />
        <Button size="sm" busy={busy === "check"} onClick={() => void run("check", () => api.check(host.name))}>
          Check
        </Button>
        {host.added ? (
          <Button size="sm" variant="ghost" onClick={() => void run("remove", () => api.remove(host.name))}>
            Remove
          </Button>
        ) : null}
      </div>
      {h ? <HealthRows h={h} checkedAt={host.checkedAt} /> : <p className="jc-meta">Not checked yet.</p>}
      {h?.reachable ? (
        <div className="jc-host__agents">
          {agents.map((ag) => (
            <span key={ag.command} className="jc-host__agent">
              <span className="jc-host__agent-name">{ag.name}</span>
              {h.agents[ag.command] !== undefined ? (
                <span className="jc-host__ok">{h.agents[ag.command] || "installed"}</span>
              ) : (
                <Button
                  size="sm"
                  busy={busy === ag.command}
                  onClick={() => void run(ag.command, async () => setLog(await api.install(host.name, ag.command)))}
                >
                  Install {ag.package}
                </Button>
              )}
            </span>
          ))}
        </div>
      ) : null}
      <FormError error={error} />
      {log ? <pre className="jc-host__log">{log}</pre> : null}
    </section>
  );
}

function HealthRows({ h, checkedAt }: { h: NonNullable<HostView["health"]>; checkedAt: number }) {
  if (!h.reachable) {
    return (
      <p className="jc-host__down" data-testid="host-unreachable">
        Unreachable: {h.error}
      </p>
    );
  }
  return (
    <dl className="jc-host__facts">
      <dt>System</dt>
      <dd>
        {h.os}/{h.arch}
      </dd>
      <dt>git</dt>
      <dd>{h.git || <span className="jc-host__down">not installed</span>}</dd>
      <dt>Free disk</dt>
      <dd>{bytes(h.freeBytes)}</dd>
      <dt>Check took</dt>
      <dd>{h.latencyMs} ms</dd>
      <dt>Node / npm</dt>
      <dd>{[h.agents.node, h.agents.npm].filter(Boolean).join(" / ") || "not installed"}</dd>
      <dt>Checked</dt>
      <dd>{checkedAt ? new Date(checkedAt).toLocaleString() : "just now"}</dd>
    </dl>
  );
}
