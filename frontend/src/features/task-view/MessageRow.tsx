// MessageRow renders one display row: a user turn, an assistant message
// (its parts through the part registry), a system message, a result summary
// or a session notice.

import { memo } from "react";
import type { DisplayRow } from "../../timeline/groups";
import type { TimelineState, Notice } from "../../timeline/state";
import { PartView } from "../../parts/registry";
import { ResultSummary, resultFromComplete, resultFromMessage } from "./ResultSummary";
import { timelineCosts } from "../../timeline/cost";
import { localTime } from "../../lib/time";

function NoticeRow({ n }: { n: Notice }) {
  switch (n.kind) {
    case "complete":
      return <ResultSummary data={resultFromComplete(n.result)} />;
    case "error":
      return (
        <div className={`jc-tv-notice is-error${n.fatal ? " is-fatal" : ""}`} role="alert">
          <strong>{n.fatal ? "Error" : "Warning"}</strong> {n.text}
        </div>
      );
    default: {
      const _exhaustive: never = n.kind;
      return _exhaustive;
    }
  }
}

/** QuietRow is a run of quiet notices, collapsed: a count, each notice and its raw frame on demand. */
function QuietRow({ ids, state }: { ids: string[]; state: TimelineState }) {
  const msgs = ids.map((id) => state.messages.get(id)?.msg).filter((m) => m !== undefined);
  const n = msgs.length;
  return (
    <details className="jc-quiet" data-role="quiet">
      <summary>
        {n} system notice{n === 1 ? "" : "s"}
      </summary>
      {msgs.map((m) => {
        const raw = m.metadata?.raw;
        return (
          <details key={m.id} className="jc-quiet__item">
            <summary>{(m.parts ?? []).map((p) => p.text).filter(Boolean).join(" ") || "System notice"}</summary>
            {typeof raw === "string" ? <pre className="jc-quiet__raw">{raw}</pre> : null}
          </details>
        );
      })}
    </details>
  );
}

export interface MessageRowProps {
  row: DisplayRow;
  state: TimelineState;
  /** For memo: the row's revision. */
  rev: number;
}

export const MessageRow = memo(function MessageRow({ row, state }: MessageRowProps) {
  if (row.kind === "notice") return <NoticeRow n={row.notice} />;
  if (row.kind === "quiet") return <QuietRow ids={row.ids} state={state} />;
  const e = state.messages.get(row.id);
  if (!e) return null;
  const m = e.msg;
  if (row.kind === "result") {
    const data = resultFromMessage(m);
    const done = state.completeOf.get(m.id);
    if (done?.interrupted) data.interrupted = true;
    if (done?.reason && !data.reason) data.reason = done.reason;
    data.turn = timelineCosts(state).get(m.id);
    return <ResultSummary data={data} />;
  }
  const parts = m.parts ?? [];
  if (m.role === "user") {
    const synthetic = m.isSynthetic;
    return (
      <div className={`jc-msg jc-msg--user${synthetic ? " is-synthetic" : ""}`} data-role="user" title={localTime(m.timestamp) || undefined}>
        <div className="jc-msg__bubble">
          {parts.map((p, i) => (
            <PartView key={i} part={p} message={m} depth={0} />
          ))}
        </div>
      </div>
    );
  }
  return (
    <div className={`jc-msg jc-msg--${m.role}${m.isError ? " is-error" : ""}`} data-role={m.role} title={localTime(m.timestamp) || undefined}>
      {parts.map((p, i) => (
        <PartView key={i} part={p} message={m} depth={0} />
      ))}
    </div>
  );
}, (a, b) => a.rev === b.rev && a.row.key === b.row.key && a.state === b.state);

export function rowRev(r: DisplayRow): number {
  return r.kind === "notice" ? 0 : r.rev;
}
