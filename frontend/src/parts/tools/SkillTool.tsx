import type { ToolProps, ToolRenderer } from "./types";
import { Collapsible } from "./Output";
import { str } from "../util";

function name(p: ToolProps): string {
  const sr = p.view.result?.structuredResult;
  return (sr?.kind === "skill" ? sr.commandName : "") || str(p.input, "skill", "command", "name") || (p.view.use.toolName ?? "skill");
}

function Body(p: ToolProps) {
  const sr = p.view.result?.structuredResult;
  return (
    <div className="jc-tool-skill">
      {sr?.kind === "skill" ? <div className="jc-meta">{sr.success ? "Skill loaded" : "Skill failed"}</div> : null}
      <Collapsible text={p.output} />
    </div>
  );
}

export const SkillTool: ToolRenderer = {
  verb: () => "Used skill",
  summary: (p) => <code>{name(p)}</code>,
  Body,
};
