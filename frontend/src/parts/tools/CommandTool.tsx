import type { ToolProps, ToolRenderer } from "./types";
import { Collapsible } from "./Output";
import { str } from "../util";

/** exitCode finds a command's exit code: Claude prefixes failures with "Exit code N". */
export function exitCode(p: ToolProps): number | undefined {
  const m = /^(?:Exit code|exit code:?|Exited with code) (-?\d+)/m.exec(p.output);
  if (m) return Number(m[1]);
  const meta = p.view.result?.attachments;
  void meta;
  if (p.view.state === "completed") return 0;
  return undefined;
}

function stripExitPrefix(s: string): string {
  return s.replace(/^Exit code -?\d+\n?/, "");
}

function Body(p: ToolProps) {
  const cmd = str(p.input, "command", "cmd");
  const desc = str(p.input, "description");
  const code = exitCode(p);
  const out = stripExitPrefix(p.output || p.view.liveResult || "");
  return (
    <div className="jc-tool-command">
      {desc ? <div className="jc-tool__desc">{desc}</div> : null}
      <div className="jc-tool-command__cmd">
        <span className="jc-tool-command__prompt" aria-hidden="true">$</span>
        <code>{cmd}</code>
      </div>
      {out ? <Collapsible text={out} ansi /> : null}
      {code !== undefined && p.view.state !== "running" ? (
        <div className={`jc-tool-command__exit${code === 0 ? "" : " is-error"}`}>exit {code}</div>
      ) : null}
    </div>
  );
}

export const CommandTool: ToolRenderer = {
  verb: () => "Ran",
  summary: (p) => <code>{str(p.input, "command", "cmd").split("\n")[0] || p.view.use.toolName}</code>,
  Body,
  defaultOpen: (p) => p.view.state === "error" || p.view.state === "running",
};
