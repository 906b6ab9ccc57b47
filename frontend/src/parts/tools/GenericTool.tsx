import type { ToolProps, ToolRenderer } from "./types";
import { Collapsible } from "./Output";
import { pretty } from "../util";

function Body(p: ToolProps) {
  const input = pretty(p.view.use.input);
  return (
    <div className="jc-tool-generic">
      {input && input !== "{}" ? (
        <div>
          <div className="jc-tool__label">Input</div>
          <Collapsible text={input} limit={10} />
        </div>
      ) : null}
      {p.output ? (
        <div>
          <div className="jc-tool__label">Output</div>
          <Collapsible text={p.output} />
        </div>
      ) : null}
    </div>
  );
}

/**
 * mcpTool splits an MCP tool's name into its server and tool: Claude Code's
 * mcp__<server>__<tool>, and Jean-Claude's own server as other agents name
 * it (jean-claude_<tool>, mcp_jean-claude_<tool>). Null for any other name.
 */
export function mcpTool(name: string | undefined): { server: string; tool: string } | null {
  if (!name) return null;
  const claude = /^mcp__(.+?)__(.+)$/.exec(name);
  if (claude) return { server: claude[1], tool: claude[2] };
  const ours = /^(?:mcp_)?jean-claude[_.](.+)$/.exec(name);
  if (ours) return { server: "jean-claude", tool: ours[1] };
  return null;
}

/** mcpDetail is the one input worth showing in the row: a message, question or prompt. */
function mcpDetail(input: unknown): string {
  if (!input || typeof input !== "object") return "";
  const o = input as Record<string, unknown>;
  for (const k of ["message", "question", "prompt", "taskId"]) {
    const v = o[k];
    if (typeof v === "string" && v.trim()) return v.length > 120 ? v.slice(0, 119) + "…" : v;
  }
  return "";
}

function Summary(p: ToolProps) {
  const name = p.view.use.toolName;
  const m = mcpTool(name);
  if (!m) return <code>{name || "tool"}</code>;
  const detail = mcpDetail(p.view.use.input);
  return (
    <span className="jc-tool-mcp" title={name}>
      <span className="jc-tool-mcp__server">{m.server === "jean-claude" ? "Jean-Claude" : m.server}</span>{" "}
      <code>{m.tool.replace(/_/g, " ")}</code>
      {detail ? <span className="jc-tool-mcp__detail"> — {detail}</span> : null}
    </span>
  );
}

/** GenericTool renders any tool without a dedicated renderer: its input and output. */
export const GenericTool: ToolRenderer = {
  verb: () => "Used",
  summary: (p) => <Summary {...p} />,
  Body,
};
