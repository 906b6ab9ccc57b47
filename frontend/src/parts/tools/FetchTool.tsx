import type { ToolProps, ToolRenderer } from "./types";
import { Markdown } from "../Markdown";
import { str } from "../util";

function Body(p: ToolProps) {
  const url = str(p.input, "url");
  const prompt = str(p.input, "prompt", "query");
  return (
    <div className="jc-tool-fetch">
      {url ? (
        <div className="jc-meta">
          <a href={url} target="_blank" rel="noreferrer noopener">{url}</a>
        </div>
      ) : null}
      {prompt ? <div className="jc-tool__desc">{prompt}</div> : null}
      {p.output ? (
        <div className="jc-tool-fetch__body">
          <Markdown text={p.output.length > 20000 ? p.output.slice(0, 20000) + "\n\n…" : p.output} />
        </div>
      ) : null}
    </div>
  );
}

export const FetchTool: ToolRenderer = {
  verb: (p) => (str(p.input, "url") ? "Fetched" : "Searched the web for"),
  summary: (p) => <code>{str(p.input, "url", "query") || p.view.use.toolName}</code>,
  Body,
};
