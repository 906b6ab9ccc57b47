// Composer sends follow-ups. While the agent works, what is sent waits in the
// orchestrator's queue, shown above the input where each item can be edited
// or removed. It also switches the interaction mode and the model, and stops
// the agent.

import { useState } from "react";
import { ALL_MODES, type InteractionMode, type QueuedMessage } from "../../timeline/types";

const MODE_LABEL: Record<InteractionMode, string> = {
  ask: "Ask",
  "accept-edits": "Accept edits",
  plan: "Plan",
  bypass: "Bypass",
};

export interface ComposerProps {
  busy: boolean;
  queue: readonly QueuedMessage[];
  mode?: InteractionMode;
  modes?: readonly InteractionMode[];
  model?: string;
  models?: readonly string[];
  canSetMode?: boolean;
  canSetModel?: boolean;
  canStop?: boolean;
  onSend: (text: string) => Promise<void>;
  onStop: () => Promise<void>;
  onEditQueued: (id: string, text: string) => Promise<void>;
  onRemoveQueued: (id: string) => Promise<void>;
  /** Sends a message left in the queue when the agent is not working (after a Stop). */
  onSendQueuedNow?: (q: QueuedMessage) => Promise<void>;
  onSetMode: (m: InteractionMode) => Promise<void>;
  onSetModel: (m: string) => Promise<void>;
}

function QueuedItem({ q, onEdit, onRemove, onSendNow }: { q: QueuedMessage; onEdit: (t: string) => Promise<void>; onRemove: () => Promise<void>; onSendNow?: () => Promise<void> }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(q.text);
  return (
    <li className="jc-queue__item" data-testid="queued-message">
      {editing ? (
        <form
          className="jc-queue__edit"
          onSubmit={async (e) => {
            e.preventDefault();
            if (text.trim()) await onEdit(text.trim());
            setEditing(false);
          }}
        >
          <input value={text} onChange={(e) => setText(e.target.value)} aria-label="Edit queued message" autoFocus
            onKeyDown={(e) => { if (e.key === "Escape") { setText(q.text); setEditing(false); } }} />
          <button type="submit" className="jc-tv-btn is-small">Save</button>
        </form>
      ) : (
        <>
          <span className="jc-queue__badge" title={onSendNow ? "The agent is not working: this message waits until you send it" : "Sent when the agent finishes its turn"}>
            {onSendNow ? "Not sent" : "Queued"}
          </span>
          <span className="jc-queue__text" title={q.text}>{q.text}</span>
          {onSendNow ? (
            <button type="button" className="jc-tv-btn is-small is-primary" onClick={() => onSendNow()} data-testid="send-now">
              Send now
            </button>
          ) : null}
          <button type="button" className="jc-tv-btn is-small is-ghost" onClick={() => { setText(q.text); setEditing(true); }} aria-label="Edit">Edit</button>
          <button type="button" className="jc-tv-btn is-small is-ghost" onClick={() => onRemove()} aria-label="Remove">Remove</button>
        </>
      )}
    </li>
  );
}

export function Composer(p: ComposerProps) {
  const [text, setText] = useState("");
  const [err, setErr] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [modelDraft, setModelDraft] = useState<string | null>(null);
  const modes = p.modes && p.modes.length > 0 ? p.modes : ALL_MODES;

  const run = async (f: () => Promise<void>) => {
    setErr(null);
    try {
      await f();
    } catch (e) {
      setErr(e instanceof Error ? e.message : String(e));
    }
  };

  const send = async () => {
    const t = text.trim();
    if (!t || sending) return;
    setSending(true);
    await run(async () => {
      await p.onSend(t);
      setText("");
    });
    setSending(false);
  };

  return (
    <div className="jc-composer" data-testid="composer">
      {p.queue.length > 0 ? (
        <ul className="jc-queue" aria-label="Queued messages">
          {p.queue.map((q) => (
            <QueuedItem
              key={q.id}
              q={q}
              onEdit={(t) => run(() => p.onEditQueued(q.id, t))}
              onRemove={() => run(() => p.onRemoveQueued(q.id))}
              onSendNow={!p.busy && p.onSendQueuedNow ? () => run(() => p.onSendQueuedNow!(q)) : undefined}
            />
          ))}
        </ul>
      ) : null}
      {err ? <div className="jc-composer__error" role="alert">{err}</div> : null}
      <div className="jc-composer__box">
        <textarea
          className="jc-composer__input"
          value={text}
          rows={Math.min(8, Math.max(2, text.split("\n").length))}
          placeholder={p.busy ? "Queue a follow-up… (sent when the agent is done)" : "Send a follow-up…  (Enter to send, Shift+Enter for a new line)"}
          aria-label="Message"
          data-card-digits=""
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              send();
            }
          }}
        />
        <div className="jc-composer__bar">
          <select
            className="jc-select"
            value={p.mode ?? ""}
            aria-label="Mode"
            disabled={p.canSetMode === false}
            onChange={(e) => run(() => p.onSetMode(e.target.value as InteractionMode))}
          >
            {p.mode ? null : <option value="">Mode</option>}
            {modes.map((m) => (
              <option key={m} value={m}>
                {MODE_LABEL[m]}
              </option>
            ))}
          </select>
          <input
            className="jc-model-input"
            list="jc-models"
            aria-label="Model"
            placeholder="default model"
            disabled={p.canSetModel === false}
            value={modelDraft ?? p.model ?? ""}
            onChange={(e) => setModelDraft(e.target.value)}
            onBlur={() => {
              if (modelDraft !== null && modelDraft !== (p.model ?? "")) run(() => p.onSetModel(modelDraft));
              setModelDraft(null);
            }}
            onKeyDown={(e) => {
              if (e.key === "Enter") (e.target as HTMLInputElement).blur();
            }}
          />
          <datalist id="jc-models">
            {(p.models ?? []).map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
          <span className="jc-tool__spacer" />
          {p.busy ? (
            <button type="button" className="jc-tv-btn is-danger" onClick={() => run(p.onStop)} disabled={p.canStop === false} aria-label="Stop">
              ■ Stop
            </button>
          ) : null}
          <button type="button" className="jc-tv-btn is-primary" onClick={send} disabled={!text.trim() || sending}>
            {p.busy ? "Queue" : "Send"}
          </button>
        </div>
      </div>
    </div>
  );
}
