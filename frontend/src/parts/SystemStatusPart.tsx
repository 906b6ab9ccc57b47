import type { PartProps } from "./types";

/** SystemStatusPart is a one-line system event (init, status, retries, unknown frames, an agent's progress report through Jean-Claude's MCP server). */
export function SystemStatusPart({ part }: PartProps) {
  const label = part.text || [part.subtype, part.status].filter(Boolean).join(": ") || "system";
  const tone = part.subtype === "error" || part.status === "error" ? " is-error" : part.status === "warning" ? " is-warning" : "";
  return (
    <div className={`jc-part jc-part--status${tone}`} title={part.subtype}>
      <span className="jc-status-line__dot" aria-hidden="true" />
      {part.subtype === "progress" ? <span className="jc-status-line__label">Progress</span> : null}
      <span className="jc-status-line__text">{label}</span>
    </div>
  );
}
