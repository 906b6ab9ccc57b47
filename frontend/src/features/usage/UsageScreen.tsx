// UsageScreen: cost and tokens per project, agent and day (the stored
// finished turns), as a chart and a table, and the automatic-retry setting
// for usage limits. Lazy-loaded (screens.ts) with its chart library.

import { useEffect, useMemo, useState } from "react";
import { errorMessage } from "../../lib/errors";
import { wailsUsageApi, type UsageApi, type UsageRow } from "./api";
import { daysBack, formatCost, formatTokens, usageChart, usageTotals, type GroupBy, type Metric } from "./reducers";
import { UsageChart } from "./UsageChart";
import "./usage.css";

const PERIODS = [7, 30, 90];

export function UsageScreen({ api: apiProp }: { api?: UsageApi }) {
  const api = useMemo(() => apiProp ?? wailsUsageApi(), [apiProp]);
  const [days, setDays] = useState(30);
  const [metric, setMetric] = useState<Metric>("cost");
  const [by, setBy] = useState<GroupBy>("agent");
  const [rows, setRows] = useState<UsageRow[] | null>(null);
  const [error, setError] = useState("");
  const [auto, setAuto] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    setError("");
    api.usage(days).then((r) => live && setRows(r), (e) => live && setError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [api, days]);
  useEffect(() => {
    api.autoRetry().then(setAuto, () => setAuto(null));
  }, [api]);
  const chart = useMemo(() => usageChart(rows ?? [], daysBack(days, new Date()), metric, by), [rows, days, metric, by]);
  const totals = useMemo(() => usageTotals(rows ?? []), [rows]);
  const costTotal = totals.reduce((a, t) => a + t.costUsd, 0);
  const tokenTotal = totals.reduce((a, t) => a + t.tokens, 0);
  return (
    <div className="jc-page" data-testid="usage-screen">
      <header className="jc-page__header">
        <div className="jc-page__eyebrow">All projects</div>
        <h1 className="jc-page__title">Usage</h1>
      </header>
      <section className="jc-card">
        <div className="jc-usage__controls">
          <span className="jc-usage__total" data-testid="usage-total">
            {formatCost(costTotal)} · {formatTokens(tokenTotal)} tokens
          </span>
          <select className="jc-input" aria-label="Period" value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {PERIODS.map((p) => (
              <option key={p} value={p}>
                Last {p} days
              </option>
            ))}
          </select>
          <select className="jc-input" aria-label="Metric" value={metric} onChange={(e) => setMetric(e.target.value as Metric)}>
            <option value="cost">Cost</option>
            <option value="tokens">Tokens</option>
          </select>
          <select className="jc-input" aria-label="Group by" value={by} onChange={(e) => setBy(e.target.value as GroupBy)}>
            <option value="agent">By agent</option>
            <option value="project">By project</option>
          </select>
        </div>
        {error ? <div className="jc-field__error" role="alert">{error}</div> : null}
        {rows && rows.length === 0 ? <p className="jc-card__desc">No finished turns in this period.</p> : null}
        {rows && rows.length > 0 ? <UsageChart chart={chart} metric={metric} /> : null}
      </section>
      {totals.length > 0 ? (
        <section className="jc-card">
          <h2 className="jc-card__title">By project and agent</h2>
          <table className="jc-usage__table" data-testid="usage-table">
            <thead>
              <tr>
                <th>Project</th>
                <th>Agent</th>
                <th className="num">Turns</th>
                <th className="num">Tokens</th>
                <th className="num">Cost</th>
              </tr>
            </thead>
            <tbody>
              {totals.map((t) => (
                <tr key={t.key}>
                  <td>{t.project}</td>
                  <td>{t.agent}</td>
                  <td className="num">{t.turns}</td>
                  <td className="num">{formatTokens(t.tokens)}</td>
                  <td className="num">{formatCost(t.costUsd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      <section className="jc-card">
        <h2 className="jc-card__title">Usage limits</h2>
        <p className="jc-card__desc">
          When an agent reports a usage or rate limit with a reset time, its task counts down to the reset.
        </p>
        <label className="jc-check">
          <input
            type="checkbox"
            name="autoRetry"
            checked={auto ?? true}
            disabled={auto === null}
            onChange={(e) => {
              const on = e.target.checked;
              setAuto(on);
              api.setAutoRetry(on).catch(() => setAuto(!on));
            }}
          />
          Retry automatically at the reset (sends the task's last message again)
        </label>
      </section>
    </div>
  );
}
