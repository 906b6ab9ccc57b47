// ContextMeter shows how full the model's context window is, from the
// latest per-model usage (input + cache tokens of the main model against its
// contextWindow).

import type { ModelUsage } from "../../timeline/types";
import { formatTokens } from "../../parts/util";

export interface ContextUse {
  model: string;
  used: number;
  window: number;
  ratio: number;
}

/** contextUse picks the model with a context window that used the most input. */
export function contextUse(usage: Record<string, ModelUsage> | undefined): ContextUse | null {
  let best: ContextUse | null = null;
  for (const [model, u] of Object.entries(usage ?? {})) {
    if (!u.contextWindow) continue;
    const used = u.inputTokens + (u.cacheReadTokens ?? 0) + (u.cacheCreationTokens ?? 0) + u.outputTokens;
    if (!best || used > best.used) best = { model, used, window: u.contextWindow, ratio: Math.min(1, used / u.contextWindow) };
  }
  return best;
}

export function ContextMeter({ usage }: { usage: Record<string, ModelUsage> | undefined }) {
  const c = contextUse(usage);
  if (!c) return null;
  const pct = Math.round(c.ratio * 100);
  const tone = c.ratio >= 0.85 ? "is-high" : c.ratio >= 0.6 ? "is-mid" : "is-low";
  return (
    <div
      className={`jc-context-meter ${tone}`}
      role="meter"
      aria-label="Context used"
      aria-valuemin={0}
      aria-valuemax={c.window}
      aria-valuenow={c.used}
      title={`${c.model}: ${c.used} of ${c.window} tokens`}
    >
      <span className="jc-context-meter__track">
        <span className="jc-context-meter__fill" style={{ width: `${pct}%` }} />
      </span>
      <span className="jc-context-meter__label">
        {pct}% · {formatTokens(c.used)}/{formatTokens(c.window)}
      </span>
    </div>
  );
}
