import { useMemo, useState } from "react";
import { AnsiUp } from "ansi_up";
import { CopyButton } from "../CopyButton";
import { lineCount } from "../util";
import { linkifyHtml } from "../../lib/links";
import { Linked } from "../../lib/Linked";

const COLLAPSE_LINES = 12;

/** Collapsible shows long plain text folded to its first lines, with a toggle. */
export function Collapsible({ text, ansi = false, limit = COLLAPSE_LINES, className = "" }: { text: string; ansi?: boolean; limit?: number; className?: string }) {
  const [open, setOpen] = useState(false);
  const lines = lineCount(text);
  const long = lines > limit;
  const shown = !long || open ? text : text.split("\n").slice(0, limit).join("\n");
  const html = useMemo(() => {
    if (!ansi) return null;
    const au = new AnsiUp();
    au.use_classes = true;
    return linkifyHtml(au.ansi_to_html(shown));
  }, [ansi, shown]);
  if (!text) return null;
  return (
    <div className={`jc-output ${className}`}>
      <div className="jc-output__tools">
        <CopyButton text={text} />
      </div>
      {html !== null ? (
        <pre className="jc-output__pre" dangerouslySetInnerHTML={{ __html: html }} />
      ) : (
        <pre className="jc-output__pre">
          <Linked text={shown} />
        </pre>
      )}
      {long ? (
        <button type="button" className="jc-output__more" onClick={() => setOpen((o) => !o)}>
          {open ? "Show less" : `Show all ${lines} lines`}
        </button>
      ) : null}
    </div>
  );
}

/** CodeLines shows file content with line numbers, folded when long. */
export function CodeLines({ text, start = 1, limit = 20 }: { text: string; start?: number; limit?: number }) {
  const [open, setOpen] = useState(false);
  const all = text.replace(/\n$/, "").split("\n");
  const lines = open ? all : all.slice(0, limit);
  return (
    <div className="jc-code-lines">
      <table>
        <tbody>
          {lines.map((l, i) => (
            <tr key={i}>
              <td className="jc-code-lines__no">{start + i}</td>
              <td className="jc-code-lines__src">{l}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {all.length > limit ? (
        <button type="button" className="jc-output__more" onClick={() => setOpen((o) => !o)}>
          {open ? "Show less" : `Show all ${all.length} lines`}
        </button>
      ) : null}
    </div>
  );
}
