import type { PartProps } from "./types";
import { formatTokens } from "./util";

/** CompactPart marks where the agent compacted its context. */
export function CompactPart({ part }: PartProps) {
  const trigger = part.trigger === "manual" ? "manually" : "automatically";
  return (
    <div className="jc-part jc-part--compact" role="separator">
      <span className="jc-compact__line" />
      <span className="jc-compact__label">
        Context compacted {trigger}
        {part.preTokens ? ` · was ${formatTokens(part.preTokens)} tokens` : ""}
      </span>
      <span className="jc-compact__line" />
    </div>
  );
}
