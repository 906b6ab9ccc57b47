import type { ToolProps, ToolRenderer } from "./types";
import { asObject, str } from "../util";

function questions(p: ToolProps): string[] {
  const qs = p.input.questions;
  if (Array.isArray(qs)) return qs.map((q) => str(asObject(q), "question", "header")).filter(Boolean);
  const one = str(p.input, "question");
  return one ? [one] : [];
}

function Body(p: ToolProps) {
  const qs = questions(p);
  if (qs.length === 0 && !p.output) {
    return <div className="jc-meta">{p.view.state === "completed" ? "No answer recorded" : "Waiting for your answer…"}</div>;
  }
  return (
    <div className="jc-tool-ask">
      <ul>
        {qs.map((q, i) => (
          <li key={i}>{q}</li>
        ))}
      </ul>
      {p.output ? <div className="jc-tool-ask__answer">{p.output}</div> : null}
    </div>
  );
}

export const AskUserTool: ToolRenderer = {
  verb: () => "Asked",
  summary: (p) => <span>{questions(p)[0] ?? "a question"}</span>,
  Body,
  defaultOpen: () => true,
};
