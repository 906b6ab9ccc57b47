// ResultSummary closes a turn: outcome, duration, cost, tokens and the
// per-model usage table.

import { useState } from "react";
import type { Message, ModelUsage, Result } from "../../timeline/types";
import { formatCost, formatDuration, formatTokens } from "../../parts/util";

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
  const label = data.interrupted ? "Interrupted" : data.isError ? "Failed" : "Done";
  const tone = data.interrupted ? "is-interrupted" : data.isError ? "is-error" : "is-ok";
  const tokens = (data.inputTokens ?? 0) + (data.outputTokens ?? 0);
  return (
    <div className={`jc-result ${tone}`} data-testid="result-summary">
      <button type="button" className="jc-result__bar" aria-expanded={open} onClick={() => setOpen(!open)} disabled={models.length === 0 && !data.text}>
        <span className="jc-result__label">{label}</span>
        {data.durationMs ? <span className="jc-result__stat" title="duration">{formatDuration(data.durationMs)}</span> : null}
        {data.costUsd !== undefined ? <span className="jc-result__stat" title="cost">{formatCost(data.costUsd)}</span> : null}
        {tokens ? (
          <span className="jc-result__stat" title="input / output tokens">
            {formatTokens(data.inputTokens ?? 0)} in · {formatTokens(data.outputTokens ?? 0)} out
          </span>
        ) : null}
        {data.reason && data.reason !== "completed" ? <span className="jc-result__stat">{data.reason}</span> : null}
        <span className="jc-tool__spacer" />
        {models.length > 0 || data.text ? <span className="jc-chevron" aria-hidden="true" /> : null}
      </button>
      {data.isError && data.text ? <div className="jc-result__error">{data.text}</div> : null}
      {open ? (
        <div className="jc-result__details">
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
