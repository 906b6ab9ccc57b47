import type { PartProps } from "./types";
import { Markdown } from "./Markdown";

export function TextPart({ part, message }: PartProps) {
  const text = part.text ?? "";
  if (message.role === "user") {
    return <div className="jc-part jc-part--user-text">{text}</div>;
  }
  return (
    <div className="jc-part jc-part--text">
      <Markdown text={text} />
    </div>
  );
}
