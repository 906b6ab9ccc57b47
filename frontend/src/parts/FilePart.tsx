import type { PartProps } from "./types";
import { basename } from "./util";

/** FilePart is a file attached to a message (an image or a text file). */
export function FilePart({ part }: PartProps) {
  const path = part.path ?? "";
  const mime = part.mime ?? "";
  const content = typeof part.content === "string" ? part.content : "";
  const isImage = mime.startsWith("image/") && content !== "";
  const src = isImage ? (content.startsWith("data:") ? content : `data:${mime};base64,${content}`) : "";
  return (
    <div className="jc-part jc-part--file">
      <span className="jc-file__icon" aria-hidden="true">📄</span>
      <span className="jc-file__name" title={path}>{basename(path) || "attachment"}</span>
      {mime ? <span className="jc-meta">{mime}</span> : null}
      {isImage ? <img className="jc-file__image" src={src} alt={path} /> : null}
    </div>
  );
}
