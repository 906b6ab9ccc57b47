// UsageChart: grouped bars per day, one series per agent or project, drawn
// by uPlot (a 22 KB gzip, dependency-free canvas chart library), imported
// when a chart is first drawn: its own chunk, never in the first paint.

import { useEffect, useRef } from "react";
import type uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { Metric, UsageChart as Chart } from "./reducers";
import { formatTokens } from "./reducers";

/** axisCost labels a cost axis finely enough for small amounts. */
function axisCost(v: number): string {
  if (v === 0) return "$0";
  return v < 0.1 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`;
}

const COLORS = ["#5b5bd6", "#1a8a4a", "#d1383d", "#b86e00", "#2a72d0", "#8e4ec6", "#0f9b9b", "#c2458a"];

export function UsageChart({ chart, metric, width = 720 }: { chart: Chart; metric: Metric; width?: number }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    let plot: uPlot | undefined;
    let live = true;
    void import("uplot").then(({ default: UPlot }) => {
      if (live) plot = draw(UPlot, el, chart, metric, width);
    });
    return () => {
      live = false;
      plot?.destroy();
    };
  }, [chart, metric, width]);
  return <div ref={ref} className="jc-usage__chart" data-testid="usage-chart" />;
}

function draw(UPlot: typeof uPlot, el: HTMLElement, chart: Chart, metric: Metric, width: number): uPlot {
  const xs = chart.days.map((d) => new Date(`${d}T12:00:00`).getTime() / 1000);
  const fmt = metric === "cost" ? axisCost : formatTokens;
  const n = Math.max(1, chart.series.length);
  const bars = UPlot.paths.bars?.({ size: [0.8 / n, 40], align: 0 }) ?? undefined;
  const opts: uPlot.Options = {
    width: Math.max(320, Math.min(width, el.clientWidth || width)),
    height: 240,
    legend: { show: false }, // the table below names the numbers
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [
      { stroke: "#8b8d96", grid: { show: false } },
      { stroke: "#8b8d96", values: (_u, vals) => vals.map((v) => fmt(v)), size: 78 },
    ],
    series: [
      {},
      ...chart.series.map((s, i) => ({
        label: s.label,
        stroke: COLORS[i % COLORS.length],
        fill: COLORS[i % COLORS.length] + "cc",
        width: 0,
        paths: bars,
      points: { show: false },
        value: (_u: uPlot, v: number | null) => (v == null ? "" : fmt(v)),
      })),
    ],
  };
  const data: uPlot.AlignedData = [xs, ...chart.series.map((s) => s.values)];
  return new UPlot(opts, data, el);
}
