import type { PartProps } from "./types";
import { textOf } from "../timeline/state";
import { useTimeline } from "./context";
import { Collapsible } from "./tools/Output";

/**
 * ToolResultPart renders a tool result on its own. Results whose tool use is
 * known render inside that tool's card instead, so this only shows orphans.
 */
export function ToolResultPart({ part }: PartProps) {
  const { state } = useTimeline();
  if (part.toolId && state.toolUses.has(part.toolId)) return null;
  const text = textOf(part.content);
  return (
    <div className={`jc-part jc-part--tool-result${part.isError ? " is-error" : ""}`}>
      <div className="jc-meta">{part.title || "Tool result"}</div>
      <Collapsible text={text} />
    </div>
  );
}
