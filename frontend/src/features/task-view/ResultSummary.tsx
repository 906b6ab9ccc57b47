// ResultSummary closes a turn: outcome, duration, cost, tokens and the
// per-model usage table.

import { useState } from "react";
import type { Message, ModelUsage, Result } from "../../timeline/types";
import { formatCost, formatDuration, formatTokens } from "../../parts/util";
import type { TurnCost } from "../../timeline/cost";
import { turnOutcome } from "../../lib/status";
import { readableAgentText } from "../../lib/agentText";

export interface ResultData {
  isError: boolean;
  text?: string;
  durationMs?: number;
  costUsd?: number;
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  modelUsage?: Record<string, ModelUsage>;
  interrupted?: boolean;
  reason?: string;
  /** This turn's own cost when the agent reports a running total (Claude). */
  turn?: TurnCost;
}

export function resultFromMessage(m: Message): ResultData {
  return {
    isError: !!m.isError,
    text: m.result,
    durationMs: m.durationMs,
    costUsd: m.totalCost?.totalCostUsd ?? m.totalCost?.costUsd ?? m.cost?.costUsd,
    inputTokens: m.usage?.inputTokens,
    outputTokens: m.usage?.outputTokens,
    cacheReadTokens: m.usage?.cacheReadTokens,
    modelUsage: m.modelUsage,
    reason: typeof m.metadata?.terminalReason === "string" ? m.metadata.terminalReason : undefined,
  };
}

export function resultFromComplete(r: Result | undefined): ResultData {
  return {
    isError: !!r?.isError,
    text: r?.text,
    durationMs: r?.durationMs,
    costUsd: r?.cost?.totalCostUsd ?? r?.cost?.costUsd,
    inputTokens: r?.usage?.inputTokens,
    outputTokens: r?.usage?.outputTokens,
    cacheReadTokens: r?.usage?.cacheReadTokens,
    modelUsage: r?.modelUsage,
    interrupted: r?.interrupted,
    reason: r?.reason,
  };
}

export function ResultSummary({ data }: { data: ResultData }) {
  const [open, setOpen] = useState(false);
  const models = Object.entries(data.modelUsage ?? {});
  const out = turnOutcome({ isError: data.isError, interrupted: data.interrupted, reason: data.reason, text: data.text });
  const tone = out.key === "stopped" ? "is-stopped" : out.key === "failed" ? "is-error" : "is-ok";
  const cost = data.turn?.costUsd ?? data.costUsd;
  const inTok = data.turn?.inputTokens ?? data.inputTokens ?? 0;
  const outTok = data.turn?.outputTokens ?? data.outputTokens ?? 0;
  const tokens = inTok + outTok;
  const expandable = models.length > 0 || !!data.text || !!out.code;
  return (
    <div className={`jc-result ${tone}`} data-testid="result-summary" data-outcome={out.key}>
      <button type="button" className="jc-result__bar" aria-expanded={open} onClick={() => setOpen(!open)} disabled={!expandable}>
        <span className="jc-result__label">{out.label}</span>
        {data.durationMs ? <span className="jc-result__stat" title="How long the turn took">{formatDuration(data.durationMs)}</span> : null}
        {cost !== undefined ? (
          <span className="jc-result__stat" data-testid="turn-cost" title={data.turn && data.costUsd !== undefined && data.costUsd !== cost ? `This turn's cost (the session's running total: ${formatCost(data.costUsd)})` : "This turn's cost"}>
            {formatCost(cost)}
          </span>
        ) : null}
        {tokens ? (
          <span className="jc-result__stat" title="This turn's input / output tokens">
            {formatTokens(inTok)} in · {formatTokens(outTok)} out
          </span>
        ) : null}
        {out.key === "failed" && out.reason ? (
          <span className="jc-result__stat jc-result__reason" title={out.reason}>
            {readableAgentText(out.reason)}
          </span>
        ) : null}
        <span className="jc-tool__spacer" />
        {expandable ? <span className="jc-chevron" aria-hidden="true" /> : null}
      </button>
      {out.key === "failed" && data.text && data.text !== out.reason ? <div className="jc-result__error">{readableAgentText(data.text)}</div> : null}
      {open ? (
        <div className="jc-result__details">
          {out.code ? (
            <div className="jc-meta" data-testid="result-code">
              Reported by the agent: <code>{out.code}</code>
            </div>
          ) : null}
          {models.length > 0 ? (
            <table className="jc-result__models">
              <thead>
                <tr>
                  <th>Model</th>
                  <th>Input</th>
                  <th>Output</th>
                  <th>Cache read</th>
                  <th>Cache write</th>
                  <th>Cost</th>
                </tr>
              </thead>
              <tbody>
                {models.map(([name, u]) => (
                  <tr key={name}>
                    <td>{name}</td>
                    <td>{formatTokens(u.inputTokens)}</td>
                    <td>{formatTokens(u.outputTokens)}</td>
                    <td>{formatTokens(u.cacheReadTokens ?? 0)}</td>
                    <td>{formatTokens(u.cacheCreationTokens ?? 0)}</td>
                    <td>{u.costUsd !== undefined ? formatCost(u.costUsd) : "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
