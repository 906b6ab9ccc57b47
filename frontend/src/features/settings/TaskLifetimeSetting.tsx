// TaskLifetimeSetting: "Keep tasks running when the app closes" (agents
// behind relays, docs/relay.md) and what quitting does to running tasks.
// Saved by SettingsService (keys "relays" and "quitRunningTasks").

import { useEffect, useState } from "react";
import { GetTaskLifetime, SetTaskLifetime } from "../../bridge/wailsjs/go/services/SettingsService";
import { errorMessage } from "../../lib/errors";

export interface TaskLifetime {
  keepRunning: boolean;
  onQuit: string;
}

export interface TaskLifetimeApi {
  get: () => Promise<TaskLifetime>;
  set: (t: TaskLifetime) => Promise<void>;
}

const boundApi: TaskLifetimeApi = {
  get: () => GetTaskLifetime(),
  set: (t) => SetTaskLifetime(t),
};

export const QUIT_CHOICES: [string, string][] = [
  ["ask", "Ask each time"],
  ["keep", "Keep them running"],
  ["stop", "Stop them"],
];

export function TaskLifetimeSetting({ api = boundApi }: { api?: TaskLifetimeApi }) {
  const [value, setValue] = useState<TaskLifetime>({ keepRunning: true, onQuit: "stop" });
  const [loaded, setLoaded] = useState<TaskLifetime | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    Promise.resolve()
      .then(() => api.get())
      .then(
        (t) => {
          setValue(t);
          setLoaded(t);
        },
        () => {},
      );
  }, [api]);
  const save = (next: TaskLifetime) => {
    setValue(next);
    setError("");
    Promise.resolve()
      .then(() => api.set(next))
      .catch((err: unknown) => setError(errorMessage(err)));
  };
  const restart = loaded !== null && loaded.keepRunning !== value.keepRunning;
  return (
    <section className="jc-card">
      <h2 className="jc-card__title">Running tasks</h2>
      <p className="jc-card__desc">
        Agents can run under a small relay process that outlives the window: closing or a crash of Jean-Claude
        does not interrupt them, and the next start picks them up where they are. On unless turned off here.
      </p>
      <label className="jc-toggle">
        <input
          type="checkbox"
          role="switch"
          checked={value.keepRunning}
          onChange={(e) => save({ ...value, keepRunning: e.target.checked })}
        />
        <span className="jc-toggle__track" aria-hidden="true" />
        <span className="jc-toggle__text">Keep tasks running when the app closes</span>
      </label>
      {restart ? <p className="jc-card__desc">Takes effect at the next start of Jean-Claude.</p> : null}
      <label className="jc-field">
        When quitting with tasks running{" "}
        <select
          className="jc-select"
          aria-label="When quitting with tasks running"
          value={value.onQuit}
          disabled={!value.keepRunning}
          onChange={(e) => save({ ...value, onQuit: e.target.value })}
        >
          {QUIT_CHOICES.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {error ? (
        <div className="jc-field__error" role="alert">
          {error}
        </div>
      ) : null}
    </section>
  );
}
