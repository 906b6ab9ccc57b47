// ForkDialog: "Fork from here" on a message (a new task continuing from it,
// on any agent) or "Spawn a sub-task" (a child task with its own prompt).
// The new task is created, opened and started.

import { useMemo, useState } from "react";
import { useApp, useAppStore } from "../../state/context";
import { errorMessage } from "../../lib/errors";
import { wailsForkApi, type ForkApi } from "./api";

export type ForkRequest = { kind: "fork"; taskId: string; messageId: string; backend: string } | { kind: "spawn"; taskId: string; backend: string };

export function ForkDialog({ req, onClose, api: given }: { req: ForkRequest; onClose: () => void; api?: ForkApi }) {
  const api = useMemo(() => given ?? wailsForkApi(), [given]);
  const backends = useApp((s) => s.backends);
  const store = useAppStore();
  const [backend, setBackend] = useState(req.backend);
  const [prompt, setPrompt] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const fork = req.kind === "fork";

  const submit = async () => {
    setBusy(true);
    setError("");
    try {
      const t = fork ? await api.fork(req.taskId, req.messageId, backend, prompt) : await api.spawn(req.taskId, backend, prompt);
      const s = store.getState();
      s.applyTaskUpdate(t);
      s.openScreen({ kind: "task", taskId: t.id });
      onClose();
      await s.api.sessions?.start(t.id).catch(() => {});
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  const title = fork ? "Fork from here" : "Spawn a sub-task";
  return (
    <div className="jc-modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="jc-modal" role="dialog" aria-modal="true" aria-label={title} onKeyDown={(e) => e.key === "Escape" && onClose()}>
        <header className="jc-modal__header">
          <h2>{title}</h2>
        </header>
        <div className="jc-modal__body jc-fork">
          <p className="jc-fork__hint">
            {fork
              ? "A new task continues from this message: a copy of the agent's session where its CLI can fork there, else a new session seeded with the conversation up to here."
              : "A child task of this one, linked both ways."}
          </p>
          <label className="jc-fork__field">
            Agent
            <select aria-label="Agent" value={backend} onChange={(e) => setBackend(e.target.value)}>
              {backends.map((b) => (
                <option key={b.name} value={b.name}>{b.displayName || b.name}</option>
              ))}
            </select>
          </label>
          <label className="jc-fork__field">
            {fork ? "Then (optional)" : "Prompt"}
            <textarea aria-label="Prompt" rows={4} value={prompt} onChange={(e) => setPrompt(e.target.value)} placeholder={fork ? "Continue from there." : "What should the sub-task do?"} />
          </label>
          {error ? <div className="jc-banner jc-banner--error" role="alert">{error}</div> : null}
          <div className="jc-fork__actions">
            <button type="button" className="jc-btn jc-btn--secondary jc-btn--md" onClick={onClose}>Cancel</button>
            <button type="button" className="jc-btn jc-btn--primary jc-btn--md" disabled={busy || (!fork && !prompt.trim())} onClick={() => void submit()}>
              {fork ? "Fork and start" : "Create and start"}
            </button>
          </div>
        </div>
      </div>
    </div>
  );
}
