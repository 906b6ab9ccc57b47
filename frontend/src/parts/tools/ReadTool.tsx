import { PathLink } from "../PathLink";
import type { ToolProps, ToolRenderer } from "./types";
import { CodeLines } from "./Output";
import { lineCount, num, str } from "../util";

/** stripLineNumbers removes Claude's "   12→" / OpenCode's "00012| " prefixes; returns the first line number. */
export function stripLineNumbers(s: string): { text: string; start: number } {
  const lines = s.split("\n");
  const re = /^\s*(\d+)(?:→|\t|\| )/;
  const m0 = re.exec(lines[0] ?? "");
  if (!m0) return { text: s, start: 1 };
  const out = lines.map((l) => l.replace(re, ""));
  return { text: out.join("\n"), start: Number(m0[1]) };
}

function filePath(p: ToolProps): string {
  return str(p.input, "file_path", "filePath", "path", "file");
}

function Body(p: ToolProps) {
  if (p.view.state === "error") return <pre className="jc-output__pre is-error">{p.output}</pre>;
  const body = p.output.replace(/^<file>\n?|\n?<\/file>\s*$/g, "");
  const { text, start } = stripLineNumbers(body);
  return text ? <CodeLines text={text} start={start} /> : <div className="jc-meta">Empty</div>;
}

export const ReadTool: ToolRenderer = {
  verb: () => "Read",
  summary: (p) => {
    const off = num(p.input, "offset");
    const lim = num(p.input, "limit");
    const n = p.output ? lineCount(stripLineNumbers(p.output).text) : 0;
    return (
      <>
        {filePath(p) ? <PathLink path={filePath(p)} line={num(p.input, "offset") ?? 0} /> : <code>{p.view.use.toolName}</code>}
        {off || lim ? <span className="jc-meta"> lines {off ?? 1}–{(off ?? 1) + (lim ?? 0)}</span> : null}
        {n && p.view.state === "completed" ? <span className="jc-meta"> ({n} lines)</span> : null}
      </>
    );
  },
  Body,
};
