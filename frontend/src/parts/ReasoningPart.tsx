import { useState } from "react";
import type { PartProps } from "./types";
import { Markdown } from "./Markdown";
import { formatTokens } from "./util";

/** ReasoningPart is the model's thinking: collapsed by default, with its length. */
export function ReasoningPart({ part }: PartProps) {
  const [open, setOpen] = useState(false);
  const text = part.text ?? "";
  const words = text.trim() ? text.trim().split(/\s+/).length : 0;
  return (
    <div className={`jc-part jc-part--reasoning${open ? " is-open" : ""}`}>
      <button type="button" className="jc-disclosure" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <span className="jc-chevron" aria-hidden="true" />
        <span className="jc-reasoning__label">Thinking</span>
        <span className="jc-meta">{text ? `${formatTokens(text.length)} chars · ${words} words` : "redacted"}</span>
      </button>
      {open && text ? (
        <div className="jc-reasoning__body">
          <Markdown text={text} />
        </div>
      ) : null}
    </div>
  );
}
