// AgentsScreen: every registered agent backend — found or not (and where:
// a configured path, PATH, or the app's own copy), its version, its
// capabilities, a health check that starts it for real, install/uninstall
// from npm with a progress bar (and the npm log on failure), a notice when
// a newer version exists, and its settings (binary path, extra arguments,
// environment with secrets masked, default model and mode).

import { useCallback, useEffect, useMemo, useState } from "react";
import { errorMessage } from "../../lib/errors";
import { cx } from "../../lib/cx";
import { Button, Field, FormError } from "../../lib/ui";
import { CapabilityList } from "../settings/BackendSelect";
import {
  envText,
  isNewer,
  parseEnv,
  wailsAgentsApi,
  type AgentView,
  type AgentsApi,
  type Health,
  type InstallResult,
  type Mode,
  type Progress,
} from "./api";
import { requestSignIn } from "../signin/SignInDialog";
import { bootAgents, supersedeBootAgents } from "./bootAgents";
import "./agents.css";

const LOCAL_KEY = "jc.agents.lastKnown";

function readLocal(): AgentView[] | null {
  try {
    const v = JSON.parse(localStorage.getItem(LOCAL_KEY) ?? "null") as unknown;
    return Array.isArray(v) && v.length > 0 ? (v as AgentView[]) : null;
  } catch {
    return null;
  }
}

function writeLocal(list: AgentView[]) {
  try {
    localStorage.setItem(LOCAL_KEY, JSON.stringify(list));
  } catch {
    /* storage unavailable: the settings-table copy still serves */
  }
}

const SOURCE_LABEL: Record<string, string> = {
  settings: "configured path",
  path: "on PATH",
  app: "installed by Jean-Claude",
};

export function AgentsScreen({ api }: { api?: AgentsApi }) {
  const a = useMemo(() => api ?? wailsAgentsApi(), [api]);
  // The first paint needs no round trip: the first visit paints from the
  // last known state inlined into index.html (bootAgents), later ones from
  // the copy in localStorage that each list() writes; the bridge's
  // lastKnown() serves when neither has it.
  const [agents, setAgents] = useState<AgentView[] | null>(() => bootAgents() ?? readLocal());
  const [error, setError] = useState("");
  const [progress, setProgress] = useState<Record<string, Progress>>({});
  // The page paints from the last known state at once and refreshes in
  // the background (detection runs every agent's --version).
  const [refreshing, setRefreshing] = useState(true);
  const [secretsNote, setSecretsNote] = useState("");

  const load = useCallback(async () => {
    setError("");
    setRefreshing(true);
    try {
      const list = await a.list();
      setAgents(list);
      writeLocal(list);
      supersedeBootAgents();
    } catch (err) {
      setError(errorMessage(err));
      setAgents((prev) => prev ?? []);
    } finally {
      setRefreshing(false);
    }
  }, [a]);

  useEffect(() => {
    let live = true;
    a.lastKnown?.().then(
      (last) => {
        if (live && last.length > 0) setAgents((prev) => prev ?? last);
      },
      () => {},
    );
    a.secretsNote?.().then((n) => live && setSecretsNote(n), () => {});
    void load();
    const off = a.onProgress((p) => setProgress((prev) => ({ ...prev, [p.backend]: p })));
    return () => {
      live = false;
      off();
    };
  }, [a, load]);

  const replace = (v: AgentView) => setAgents((prev) => (prev ?? []).map((x) => (x.backend === v.backend ? v : x)));
  const found = agents?.filter((x) => x.found).length ?? 0;

  return (
    <div className="jc-page" data-testid="agents">
      <header className="jc-page__header">
        <div className="jc-page__eyebrow">Jean-Claude</div>
        <h1 className="jc-page__title">Agents</h1>
        <p className="jc-agents__lead">
          {agents === null
            ? "Looking for agent CLIs…"
            : `${found} of ${agents.length} agent CLIs found. Agents missing from your PATH can be installed into Jean-Claude's data folder.`}
          {agents !== null && refreshing ? <span className="jc-meta" data-testid="agents-refreshing"> Checking…</span> : null}
        </p>
        <Button size="sm" onClick={() => void load()} disabled={refreshing}>
          Refresh
        </Button>
      </header>
      {secretsNote ? (
        <p className="jc-banner jc-banner--warning" role="note" data-testid="secrets-note">
          {secretsNote}
        </p>
      ) : null}
      <FormError error={error} />
      {agents?.map((ag) => (
        <AgentCard key={ag.backend} api={a} agent={ag} progress={progress[ag.backend]} onChange={replace} onInstalled={() => void load()} />
      ))}
    </div>
  );
}

function AgentCard({
  api,
  agent,
  progress,
  onChange,
  onInstalled,
}: {
  api: AgentsApi;
  agent: AgentView;
  progress?: Progress;
  onChange: (v: AgentView) => void;
  /** onInstalled reloads the list: an install can serve other agents too (OpenCode and its ACP mode). */
  onInstalled: () => void;
}) {
  const [health, setHealth] = useState<Health | null>(null);
  const [checking, setChecking] = useState(false);
  const [latest, setLatest] = useState("");
  const [busy, setBusy] = useState<"" | "install" | "uninstall">("");
  const [result, setResult] = useState<InstallResult | null>(null);
  const [version, setVersion] = useState("pinned");
  const [error, setError] = useState("");
  const [open, setOpen] = useState(false);

  useEffect(() => {
    if (!agent.package) return;
    let live = true;
    api.latest(agent.backend).then(
      (v) => live && setLatest(v),
      () => {}, // npm unreachable: no update notice
    );
    return () => {
      live = false;
    };
  }, [api, agent.backend, agent.package]);

  async function check() {
    setChecking(true);
    setHealth(null);
    try {
      setHealth(await api.health(agent.backend));
    } catch (err) {
      setHealth({ backend: agent.backend, ok: false, detail: errorMessage(err), durationMs: 0 });
    } finally {
      setChecking(false);
    }
  }

  async function run(kind: "install" | "uninstall") {
    setBusy(kind);
    setResult(null);
    setError("");
    try {
      const v = version === "pinned" ? "" : version;
      const r = kind === "install" ? await api.install(agent.backend, v) : await api.uninstall(agent.backend);
      setResult(r);
      onChange(r.agent);
      if (r.ok) onInstalled();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy("");
    }
  }

  const installed = agent.appInstalled || "";
  const current = agent.version || agent.appInstalled;
  const update = latest && current && isNewer(latest, current) ? latest : "";

  return (
    <section className="jc-card jc-agent" data-testid={`agent-${agent.backend}`} data-found={agent.found ? "true" : "false"}>
      <div className="jc-agent__head">
        <span className={cx("jc-agent__dot", agent.found ? "jc-agent__dot--found" : "jc-agent__dot--missing")} aria-hidden="true" />
        <div className="jc-agent__title">
          <h2 className="jc-card__title">{agent.displayName}</h2>
          <code className="jc-table__sub">{agent.backend}</code>
        </div>
        <div className="jc-agent__status">
          {agent.found ? (
            <>
              <span className="jc-agent__badge jc-agent__badge--found">{agent.version ? `v${agent.version.replace(/^v/, "")}` : "found"}</span>
              <span className="jc-agent__source">{SOURCE_LABEL[agent.source ?? ""] ?? agent.source}</span>
              {agent.signedIn === "not-signed-in" ? (
                <>
                  <span className="jc-agent__badge jc-agent__badge--missing">not signed in</span>
                  <Button size="sm" variant="primary" onClick={() => void requestSignIn(agent.backend).then((ok) => ok && onInstalled())}>
                    Sign in
                  </Button>
                </>
              ) : agent.signedIn === "signed-in" ? (
                <span className="jc-agent__source">signed in</span>
              ) : null}
            </>
          ) : (
            <span className="jc-agent__badge jc-agent__badge--missing">not found</span>
          )}
          {update ? (
            <span className="jc-agent__badge jc-agent__badge--update" title={`npm has ${agent.package}@${update}`}>
              update: {update}
            </span>
          ) : null}
        </div>
      </div>

      {agent.path ? <code className="jc-agent__path">{agent.path}</code> : null}
      {agent.error ? <p className="jc-agent__error">{agent.error}</p> : null}
      <CapabilityList info={{ name: agent.backend, displayName: agent.displayName, capabilities: agent.capabilities }} />
      {agent.notes ? <p className="jc-card__desc">{agent.notes}</p> : null}

      <div className="jc-agent__actions">
        <Button size="sm" onClick={() => void check()} busy={checking} busyLabel="Starting…" disabled={!agent.found}>
          Check health
        </Button>
        {agent.package ? (
          <>
            <select
              className="jc-select jc-agent__version"
              aria-label={`${agent.displayName} version to install`}
              value={version}
              onChange={(e) => setVersion(e.target.value)}
              disabled={busy !== ""}
            >
              <option value="pinned">{agent.pinned ? `${agent.pinned} (tested)` : "tested version"}</option>
              <option value="latest">{latest ? `${latest} (latest)` : "latest"}</option>
            </select>
            <Button size="sm" variant={agent.found ? "secondary" : "primary"} onClick={() => void run("install")} busy={busy === "install"}>
              {installed ? "Reinstall" : "Install"}
            </Button>
            {installed ? (
              <Button size="sm" variant="danger" onClick={() => void run("uninstall")} busy={busy === "uninstall"}>
                Uninstall {installed}
              </Button>
            ) : null}
          </>
        ) : (
          <span className="jc-card__desc">Not on npm: install {agent.command} yourself and set its path below.</span>
        )}
        <Button size="sm" variant="ghost" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
          Settings
        </Button>
      </div>

      {health ? (
        <p className={cx("jc-agent__health", health.ok ? "jc-agent__health--ok" : "jc-agent__health--bad")} role="status">
          {health.ok ? "✓ Healthy" : health.notSignedIn ? "✗ Installed, not signed in" : "✗ Unhealthy"}: {health.detail}
          {health.durationMs ? ` (${(health.durationMs / 1000).toFixed(1)} s)` : ""}
        </p>
      ) : null}

      {busy ? <InstallProgress progress={progress} kind={busy} /> : null}
      <FormError error={error} />
      {result && !result.ok ? (
        <div className="jc-agent__log" role="alert">
          <div className="jc-agent__error">{result.error}</div>
          <pre>{result.log || "(npm printed nothing)"}</pre>
        </div>
      ) : null}
      {result && result.ok ? <p className="jc-agent__done">Done.</p> : null}

      {open ? <SettingsForm api={api} agent={agent} onSaved={onChange} /> : null}
    </section>
  );
}

function InstallProgress({ progress, kind }: { progress?: Progress; kind: "install" | "uninstall" }) {
  // npm gives no total: the bar advances with each package fetched and
  // never claims to be done before npm exits.
  const fetched = progress?.fetched ?? 0;
  const pct = Math.min(90, 8 + fetched * 12);
  return (
    <div className="jc-agent__progress" role="progressbar" aria-label={`${kind} progress`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
      <div className="jc-agent__bar">
        <div className="jc-agent__bar-fill" style={{ width: `${pct}%` }} />
      </div>
      <code className="jc-agent__progress-line">{progress?.line || (kind === "install" ? "Starting npm…" : "Removing…")}</code>
    </div>
  );
}

const MODES: { value: Mode; label: string }[] = [
  { value: "", label: "Task decides (ask)" },
  { value: "ask", label: "Ask" },
  { value: "accept-edits", label: "Accept edits" },
  { value: "plan", label: "Plan" },
  { value: "bypass", label: "Bypass" },
];

function SettingsForm({ api, agent, onSaved }: { api: AgentsApi; agent: AgentView; onSaved: (v: AgentView) => void }) {
  const s = agent.settings;
  const [binaryPath, setBinaryPath] = useState(s.binaryPath);
  const [args, setArgs] = useState((s.extraArgs ?? []).join("\n"));
  const [env, setEnv] = useState(envText(s.env ?? {}));
  const [model, setModel] = useState(s.defaultModel);
  const [secretNames, setSecretNames] = useState((s.secrets ?? []).join(", "));
  const [mode, setMode] = useState<Mode>(s.defaultMode);
  const [mcp, setMcp] = useState(!s.disableMcp);
  const [error, setError] = useState("");
  const [envError, setEnvError] = useState("");
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);

  async function save() {
    setError("");
    setSaved(false);
    const parsed = parseEnv(env);
    setEnvError(parsed.error ?? "");
    if (parsed.error) return;
    setSaving(true);
    try {
      const v = await api.saveSettings(agent.backend, {
        binaryPath: binaryPath.trim(),
        extraArgs: args
          .split("\n")
          .map((x) => x.trim())
          .filter(Boolean),
        env: parsed.env,
        defaultModel: model.trim(),
        defaultMode: mode,
        secrets: secretNames
          .split(/[,\s]+/)
          .map((x) => x.trim())
          .filter(Boolean),
        disableMcp: !mcp,
      });
      onSaved(v);
      setEnv(envText(v.settings.env ?? {}));
      setSaved(true);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form
      className="jc-agent__settings"
      aria-label={`${agent.displayName} settings`}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Field label="Binary path" hint={`Empty: ${agent.command} on PATH, else the copy Jean-Claude installed.`}>
        <input className="jc-input jc-input--mono" value={binaryPath} onChange={(e) => setBinaryPath(e.target.value)} placeholder={agent.command} />
      </Field>
      <Field label="Extra arguments" hint="One per line, appended to the agent's command line.">
        <textarea className="jc-textarea jc-input--mono" rows={2} value={args} onChange={(e) => setArgs(e.target.value)} />
      </Field>
      <Field
        label="Environment"
        error={envError}
        hint="KEY=VALUE per line. Secrets — keys like *_KEY, *_TOKEN, *PASSWORD*, values that look like credentials (URLs with a password, ghp_…, sk-…, xox…, AKIA…, glpat-…) and the names below — are kept in the system keyring, masked here, never stored in the database nor logged."
      >
        <textarea className="jc-textarea jc-input--mono" rows={3} value={env} onChange={(e) => setEnv(e.target.value)} spellCheck={false} />
      </Field>
      <Field label="Also secret" hint="Names of other variables to keep secret, comma-separated.">
        <input className="jc-input jc-input--mono" value={secretNames} onChange={(e) => setSecretNames(e.target.value)} placeholder="MY_PRIVATE_URL" />
      </Field>
      <Field label="Default model">
        <input className="jc-input" value={model} onChange={(e) => setModel(e.target.value)} placeholder="the agent's default" />
      </Field>
      <Field label="Default mode">
        <select className="jc-select" value={mode} onChange={(e) => setMode(e.target.value as Mode)}>
          {MODES.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label="Jean-Claude tools (MCP)"
        hint="Gives the agent Jean-Claude's MCP server: report progress on the task, ask you a question, start a sub-task on another agent and read its result, list tasks. Its tools run without a permission prompt."
      >
        <label className="jc-check">
          <input type="checkbox" checked={mcp} onChange={(e) => setMcp(e.target.checked)} data-testid="agent-mcp" /> Enabled
        </label>
      </Field>
      <FormError error={error} />
      <div className="jc-agent__actions">
        <Button type="submit" size="sm" variant="primary" busy={saving}>
          Save settings
        </Button>
        {saved ? <span className="jc-agent__saved">Saved. New sessions use these settings.</span> : null}
      </div>
    </form>
  );
}
