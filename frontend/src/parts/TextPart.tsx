import type { PartProps } from "./types";
import { Markdown } from "./Markdown";
import { CopyButton } from "./CopyButton";

export function TextPart({ part, message }: PartProps) {
  const text = part.text ?? "";
  if (message.role === "user") {
    return <div className="jc-part jc-part--user-text">{text}</div>;
  }
  return (
    <div className="jc-part jc-part--text">
      <Markdown text={text} />
      {text.length > 80 ? (
        <div className="jc-part__actions">
          <CopyButton text={text} />
        </div>
      ) : null}
    </div>
  );
}
