import type { ToolProps, ToolRenderer } from "./types";
import { asObject, str } from "../util";

function questions(p: ToolProps): string[] {
  const qs = p.input.questions;
  if (Array.isArray(qs)) return qs.map((q) => str(asObject(q), "question", "header")).filter(Boolean);
  const one = str(p.input, "question");
  return one ? [one] : [];
}

function Body(p: ToolProps) {
  return (
    <div className="jc-tool-ask">
      <ul>
        {questions(p).map((q, i) => (
          <li key={i}>{q}</li>
        ))}
      </ul>
      {p.output ? <div className="jc-tool-ask__answer">{p.output}</div> : null}
    </div>
  );
}

export const AskUserTool: ToolRenderer = {
  verb: () => "Asked",
  summary: (p) => <span>{questions(p)[0] ?? p.view.use.toolName}</span>,
  Body,
  defaultOpen: () => true,
};
