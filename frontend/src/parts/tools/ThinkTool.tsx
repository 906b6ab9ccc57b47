import type { ToolProps, ToolRenderer } from "./types";
import { Markdown } from "../Markdown";
import { str } from "../util";

function Body(p: ToolProps) {
  return <Markdown text={str(p.input, "thought", "thoughts", "text") || p.output} />;
}

export const ThinkTool: ToolRenderer = {
  verb: () => "Thought",
  summary: (p) => <span className="jc-meta">{(str(p.input, "thought", "thoughts", "text") || "").slice(0, 80)}</span>,
  Body,
};
