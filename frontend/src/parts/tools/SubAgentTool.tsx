import type { ToolProps, ToolRenderer } from "./types";
import { childMessages } from "../../timeline/groups";
import { PartView } from "../registry";
import { Markdown } from "../Markdown";
import { str } from "../util";

function Body(p: ToolProps) {
  const children = childMessages(p.state, p.view.use.toolId ?? "");
  const prompt = str(p.input, "prompt");
  return (
    <div className="jc-tool-subagent">
      {prompt ? (
        <details className="jc-tool-subagent__prompt">
          <summary>Prompt</summary>
          <Markdown text={prompt} />
        </details>
      ) : null}
      {children.length > 0 ? (
        <div className="jc-subagent-stream">
          {children.map((m) =>
            // The prompt the sub-agent got is shown above; skip its echo.
            (m.parts ?? []).filter((x) => !(m.role === "user" && x.type === "text" && x.text?.trim() === prompt.trim())).map((part, i) => <PartView key={`${m.id}:${i}`} part={part} message={m} depth={p.depth + 1} />),
          )}
        </div>
      ) : null}
      {p.output && p.view.state !== "running" ? (
        <div className="jc-tool-subagent__result">
          <Markdown text={p.output} />
        </div>
      ) : null}
    </div>
  );
}

export const SubAgentTool: ToolRenderer = {
  verb: () => "Agent",
  summary: (p) => {
    const n = childMessages(p.state, p.view.use.toolId ?? "").reduce(
      (acc, m) => acc + (m.parts ?? []).filter((x) => x.type === "tool-use").length,
      0,
    );
    const type = str(p.input, "subagent_type", "agent");
    return (
      <>
        <span>{str(p.input, "description") || "sub-agent"}</span>
        {type ? <span className="jc-chip">{type}</span> : null}
        {n ? <span className="jc-meta"> · {n} tool {n === 1 ? "call" : "calls"}</span> : null}
      </>
    );
  },
  Body,
  defaultOpen: (p) => p.view.state === "running" || p.view.state === "pending",
};
