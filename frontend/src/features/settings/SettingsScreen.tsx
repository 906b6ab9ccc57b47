// SettingsScreen: global settings — the default backend for new projects,
// the theme, and the installed backends with their capabilities.

import { EditorSetting } from "./EditorSetting";
import { TaskLifetimeSetting } from "./TaskLifetimeSetting";
import { useEffect, useState } from "react";
import { useApp } from "../../state/context";
import { backendInfo, type Theme } from "../../state/store";
import { errorMessage } from "../../lib/errors";
import { cx } from "../../lib/cx";
import { MonitorIcon, MoonIcon, SunIcon } from "../../lib/icons";
import { Field } from "../../lib/ui";
import { BackendSelect, CapabilityList } from "./BackendSelect";

const THEMES: { value: Theme; label: string; Icon: typeof SunIcon }[] = [
  { value: "system", label: "System", Icon: MonitorIcon },
  { value: "light", label: "Light", Icon: SunIcon },
  { value: "dark", label: "Dark", Icon: MoonIcon },
];

export function SettingsScreen() {
  const backends = useApp((s) => s.backends);
  const defaultBackend = useApp((s) => s.defaultBackend);
  const setDefaultBackend = useApp((s) => s.setDefaultBackend);
  const theme = useApp((s) => s.theme);
  const setTheme = useApp((s) => s.setTheme);
  const info = useApp((s) => backendInfo(s, s.defaultBackend));
  const [error, setError] = useState("");

  async function change(b: string) {
    setError("");
    try {
      await setDefaultBackend(b);
    } catch (err) {
      setError(errorMessage(err));
    }
  }

  return (
    <div className="jc-page" data-testid="settings">
      <header className="jc-page__header">
        <div className="jc-page__eyebrow">Jean-Claude</div>
        <h1 className="jc-page__title">Settings</h1>
      </header>

      <section className="jc-card">
        <h2 className="jc-card__title">Appearance</h2>
        <div className="jc-field">
          <span className="jc-field__label" id="theme-label">
            Theme
          </span>
          <div className="jc-field__control">
            <div className="jc-segmented" role="radiogroup" aria-labelledby="theme-label">
              {THEMES.map(({ value, label, Icon }) => (
                <label key={value} className={cx("jc-segmented__item", theme === value && "jc-segmented__item--on")}>
                  <input type="radio" name="theme" value={value} checked={theme === value} onChange={() => setTheme(value)} />
                  <Icon size={13} />
                  {label}
                </label>
              ))}
            </div>
          </div>
        </div>
      </section>

      <EditorSetting />
      <TaskLifetimeSetting />

      <section className="jc-card">
        <h2 className="jc-card__title">Agents</h2>
        <p className="jc-card__desc">The backend new projects start with. Each project can choose its own, and each task can override it.</p>
        <Field label="Default backend" error={error}>
          <BackendSelect backends={backends} value={defaultBackend} onChange={(b) => void change(b)} />
        </Field>
        <div className="jc-field-indent">
          <CapabilityList info={info} />
        </div>
      </section>

      <TaskSummaries />

      <Notifications />

      <section className="jc-card">
        <h2 className="jc-card__title">Installed backends</h2>
        <table className="jc-table">
          <thead>
            <tr>
              <th>Backend</th>
              <th>Capabilities</th>
            </tr>
          </thead>
          <tbody>
            {backends.map((b) => (
              <tr key={b.name}>
                <td>
                  <div className="jc-table__strong">{b.displayName || b.name}</div>
                  <code className="jc-table__sub">{b.name}</code>
                </td>
                <td>
                  <CapabilityList info={b} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </div>
  );
}

/** SUMMARY_AGENTS are the backends with a one-shot mode a summary can use. */
const SUMMARY_AGENTS = ["claude-code", "codex"];

/** TaskSummaries chooses the agent that writes a one-line summary when a task finishes (off by default: each is a model call). */
function TaskSummaries() {
  const api = useApp((s) => s.api);
  const backends = useApp((s) => s.backends);
  const [value, setValue] = useState<string | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    let live = true;
    api.settings.getSummaryAgent().then(
      (v) => live && setValue(v),
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [api]);
  const choices = backends.filter((b) => SUMMARY_AGENTS.includes(b.name));
  async function change(v: string) {
    setError("");
    try {
      await api.settings.setSummaryAgent(v);
      setValue(v);
    } catch (err) {
      setError(errorMessage(err));
    }
  }
  return (
    <section className="jc-card">
      <h2 className="jc-card__title">Task titles and summaries</h2>
      <p className="jc-card__desc">
        A task created without a name gets a short title from one call of this agent (you can still rename it), and when a task finishes, another
        short call writes a one-line summary, shown in the task list and in search. Off by default: each title and summary costs a model call.
      </p>
      <Field label="Summary agent" error={error}>
        <select
          className="jc-select"
          data-testid="summary-agent"
          value={value ?? ""}
          disabled={value === null}
          onChange={(e) => void change(e.target.value)}
        >
          <option value="">Off</option>
          {choices.map((b) => (
            <option key={b.name} value={b.name}>
              {b.displayName || b.name}
            </option>
          ))}
        </select>
      </Field>
    </section>
  );
}

const NOTIFICATION_KINDS: { kind: string; label: string; hint: string }[] = [
  { kind: "complete", label: "Task finished", hint: "An agent completed its turn" },
  { kind: "error", label: "Task failed", hint: "An agent stopped with an error" },
  { kind: "permission", label: "Permission needed", hint: "An agent asks before running a tool" },
  { kind: "question", label: "Question asked", hint: "An agent asks you something" },
];

/** Notifications toggles each kind of desktop notification (sent while the window is in the background). */
function Notifications() {
  const notifications = useApp((s) => s.notifications);
  const setEnabled = useApp((s) => s.setNotificationEnabled);
  const [error, setError] = useState("");
  if (!notifications) return null;
  const kinds = [
    ...NOTIFICATION_KINDS,
    ...Object.keys(notifications)
      .filter((k) => !NOTIFICATION_KINDS.some((n) => n.kind === k))
      .map((k) => ({ kind: k, label: k, hint: "" })),
  ];
  async function toggle(kind: string, on: boolean) {
    setError("");
    try {
      await setEnabled(kind, on);
    } catch (err) {
      setError(errorMessage(err));
    }
  }
  return (
    <section className="jc-card">
      <h2 className="jc-card__title">Notifications</h2>
      <p className="jc-card__desc">Desktop notifications, sent while Jean-Claude is in the background.</p>
      <ul className="jc-toggles" aria-label="Notification kinds">
        {kinds.map(({ kind, label, hint }) => (
          <li key={kind}>
            <label className="jc-toggle">
              <input
                type="checkbox"
                role="switch"
                checked={notifications[kind] ?? false}
                onChange={(e) => void toggle(kind, e.target.checked)}
              />
              <span className="jc-toggle__track" aria-hidden="true" />
              <span className="jc-toggle__text">
                <span className="jc-toggle__label">{label}</span>
                {hint ? <span className="jc-toggle__hint">{hint}</span> : null}
              </span>
            </label>
          </li>
        ))}
      </ul>
      {error ? (
        <div className="jc-field__error" role="alert">
          {error}
        </div>
      ) : null}
    </section>
  );
}
