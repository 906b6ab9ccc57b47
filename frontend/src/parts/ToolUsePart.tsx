// ToolUsePart is a tool card: a one-line header (what the tool did, its live
// state, elapsed time) that expands into the tool kind's renderer. The card
// finds its result by toolId in the timeline state.

import { useState } from "react";
import type { PartProps } from "./types";
import { useTimeline } from "./context";
import { textOf, toolView } from "../timeline/state";
import { toolRenderer } from "./tools/registry";
import type { ToolProps } from "./tools/types";
import { asObject, formatDuration } from "./util";
import { useNow } from "./useNow";
import type { ToolState } from "../timeline/types";
import { PHASE_LABEL, toolPhase, toolVerb, workedMs, type ToolPhase } from "./toolWording";
import { turnEndOf } from "./turnEnd";

/** stateLabel names a tool state; the switch is exhaustive over the generated enum. */
export function stateLabel(state: ToolState): string {
  switch (state) {
    case "pending":
      return "Pending";
    case "running":
      return "Running";
    case "completed":
      return "Done";
    case "error":
      return "Failed";
    case "denied":
      return "Denied";
    case "cancelled":
      return "Cancelled";
    case "interrupted":
      return "Interrupted";
    default: {
      const _exhaustive: never = state;
      return String(_exhaustive);
    }
  }
}

export function ToolStateIcon({ state, phase }: { state: ToolState; phase?: ToolPhase }) {
  const label = PHASE_LABEL[phase ?? (state === "completed" ? "done" : state === "error" ? "failed" : (state as ToolPhase))] ?? state;
  return <span className={`jc-tool-state is-${state}${phase ? ` is-phase-${phase}` : ""}`} aria-label={label} title={label} />;
}

const ENDED_EARLY: readonly ToolState[] = ["denied", "cancelled", "interrupted"];

export function ToolUsePart({ part, message, depth }: PartProps) {
  const { state } = useTimeline();
  const view = toolView(state, part, message.id);
  const props: ToolProps = {
    view,
    input: asObject(part.input),
    output: view.result ? textOf(view.result.content) : (view.liveResult ?? ""),
    message,
    depth,
    state,
  };
  const decision = part.toolId ? state.decisions.get(part.toolId) : undefined;
  const answer = part.toolId ? state.answers.get(part.toolId) : undefined;
  const awaiting = [...state.pending.values()].find((c) => c.request.toolId && c.request.toolId === part.toolId);
  const active0 = view.state === "running" || view.state === "pending";
  const end = active0 && !awaiting ? turnEndOf(state, message.id) : undefined;
  const phase = toolPhase({ state: view.state, awaiting: !!awaiting, decision, turnEnded: !!end, turnStopped: end?.stopped });
  props.phase = phase;
  const R = toolRenderer(part.kind);
  const [open, setOpen] = useState<boolean | null>(null);
  const isOpen = open ?? (R.defaultOpen?.(props) ?? false);
  const active = phase === "running";
  const now = useNow(active && view.startedAt !== undefined);
  const worked = workedMs({ phase, startedAt: view.startedAt, endedAt: view.endedAt, answeredAt: decision?.createdAt ?? answer?.createdAt, now });
  return (
    <div
      className={`jc-part jc-tool is-${view.state}${isOpen ? " is-open" : ""}`}
      data-tool-kind={part.kind ?? "other"}
      data-tool-id={part.toolId}
      data-state={view.state}
      data-phase={phase}
    >
      <button type="button" className="jc-tool__header" aria-expanded={isOpen} onClick={() => setOpen(!isOpen)}>
        <ToolStateIcon state={view.state} phase={phase} />
        <span className="jc-tool__verb">{toolVerb(part.kind, phase, R.verb(props))}</span>
        <span className="jc-tool__summary">{R.summary(props)}</span>
        <span className="jc-tool__spacer" />
        {awaiting ? <span className="jc-chip is-waiting">{awaiting.kind === "question" ? "awaiting your answer" : "awaiting approval"}</span> : null}
        {view.error && view.state === "error" && !view.result ? <span className="jc-chip is-error">{view.error}</span> : null}
        {ENDED_EARLY.includes(view.state) ? (
          <span className="jc-chip is-ended" title={view.error}>
            {stateLabel(view.state).toLowerCase()}
            {view.error ? `: ${view.error}` : ""}
          </span>
        ) : null}
        {decision ? (
          <span className={`jc-chip ${decision.behavior === "deny" ? "is-error" : "is-decision"}`} title={decisionTip(decision)}>
            {decisionText(decision)}
          </span>
        ) : null}
        {answer ? (
          <span className="jc-chip is-decision" title={answerTip(answer)}>
            {answerText(answer)}
          </span>
        ) : null}
        {worked !== undefined ? <span className="jc-tool__elapsed" title="Time the tool worked (waiting for you not counted)">{formatDuration(worked)}</span> : null}
        <span className="jc-chevron" aria-hidden="true" />
      </button>
      {isOpen ? (
        <div className="jc-tool__body">
          <R.Body {...props} />
        </div>
      ) : null}
    </div>
  );
}

type Answer = { request: { question?: string; questions?: { question: string }[] }; answers: string[][] };

/** answerText: what the answer chip says ("answered by you: blue · my own words"). */
function answerText(a: Answer): string {
  return `answered by you: ${a.answers.map((xs) => xs.join(", ")).join(" · ")}`;
}

/** answerTip: each question with the user's answer to it, one per line. */
function answerTip(a: Answer): string {
  const qs = a.request.questions?.length ? a.request.questions.map((q) => q.question) : [a.request.question ?? ""];
  return a.answers.map((xs, i) => `${qs[i] ?? ""}${qs[i] ? ": " : ""}${xs.join(", ")}`).join("\n");
}

type Decision = { behavior: string; scope?: string; label?: string; message?: string };

/** decisionText: what the answer chip says ("always allowed by you: Write(/path)"). */
function decisionText(d: Decision): string {
  return d.label || `${d.behavior === "deny" ? "denied" : "allowed"} ${d.scope === "once" ? "once" : `for this ${d.scope}`}`;
}

/** decisionTip: the chip's full text (it is cut with an ellipsis in a narrow row) and the answer's message. */
function decisionTip(d: Decision): string {
  const text = decisionText(d);
  return d.message && d.message !== text ? `${text}\n${d.message}` : text;
}
