import type { ToolProps, ToolRenderer } from "./types";
import { Collapsible } from "./Output";
import { str } from "../util";

function matches(p: ToolProps): number | undefined {
  if (!p.output || p.view.state !== "completed") return undefined;
  const m = /^Found (\d+) (?:files?|matches?|lines?)/m.exec(p.output);
  if (m) return Number(m[1]);
  if (/^No (files|matches) found/m.test(p.output)) return 0;
  return p.output.trim() ? p.output.trim().split("\n").length : 0;
}

function Body(p: ToolProps) {
  const path = str(p.input, "path", "cwd");
  const glob = str(p.input, "glob", "include");
  return (
    <div className="jc-tool-search">
      {path || glob ? (
        <div className="jc-meta">
          {path ? <>in <code>{path}</code> </> : null}
          {glob ? <>files <code>{glob}</code></> : null}
        </div>
      ) : null}
      <Collapsible text={p.output} limit={15} />
    </div>
  );
}

export const SearchTool: ToolRenderer = {
  verb: (p) => (/glob|find|list|ls/i.test(p.view.use.toolName ?? "") ? "Found files" : "Searched"),
  summary: (p) => {
    const n = matches(p);
    return (
      <>
        <code>{str(p.input, "pattern", "query", "regex", "path") || p.view.use.toolName}</code>
        {n !== undefined ? <span className="jc-meta"> ({n} {n === 1 ? "result" : "results"})</span> : null}
      </>
    );
  },
  Body,
};
