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

/** GenericTool renders any tool without a dedicated renderer: its input and output. */
export const GenericTool: ToolRenderer = {
  verb: () => "Used",
  summary: (p) => <code>{p.view.use.toolName || "tool"}</code>,
  Body,
};
