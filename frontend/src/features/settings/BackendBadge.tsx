// BackendBadge names the agent backend a task or project uses, tinted per backend.

import { cx } from "../../lib/cx";

const KNOWN = new Set(["claude-code", "opencode", "gemini", "codex"]);

export function backendTone(name: string): string {
  if (KNOWN.has(name)) return name;
  if (name.startsWith("acp.")) return "acp";
  return "other";
}

export function BackendBadge({ name, displayName, className }: { name: string; displayName?: string; className?: string }) {
  return (
    <span
      className={cx("jc-backend-badge", `jc-backend-badge--${backendTone(name)}`, className)}
      data-backend={name}
      title={`Agent backend: ${displayName || name}`}
    >
      {displayName || name || "—"}
    </span>
  );
}
