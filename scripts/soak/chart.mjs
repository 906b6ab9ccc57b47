// chartSVG draws the soak's memory samples as an SVG line chart: app anonymous
// memory and the page's JS heap (MB) over minutes, the start level and its +10 %
// band. soak.mjs renders it to PNG with Chromium (no chart dependency).

const W = 900;
const H = 480;
const M = { l: 60, r: 20, t: 40, b: 50 };

const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;");

function niceMax(v) {
  const step = 10 ** Math.floor(Math.log10(v || 1));
  return Math.ceil((v * 1.1) / step) * step;
}

export function chartSVG(samples, title) {
  const series = [
    { key: "appMB", label: "app anonymous memory (Go + WebKit), MB", color: "#5b5bd6" },
    { key: "heapMB", label: "page JS heap after GC, MB", color: "#d97706" },
  ];
  const xMax = Math.max(1, ...samples.map((s) => s.min));
  const yMax = niceMax(1.3 * Math.max(...samples.flatMap((s) => series.map((c) => s[c.key]))));
  const x = (v) => M.l + (v / xMax) * (W - M.l - M.r);
  const y = (v) => H - M.b - (v / yMax) * (H - M.t - M.b);
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="DejaVu Sans, sans-serif" font-size="12">`];
  out.push(`<rect width="${W}" height="${H}" fill="#fff"/>`, `<text x="${M.l}" y="22" font-size="14" font-weight="bold">${esc(title)}</text>`);
  for (let i = 0; i <= 5; i++) {
    const v = (yMax / 5) * i;
    out.push(`<line x1="${M.l}" x2="${W - M.r}" y1="${y(v)}" y2="${y(v)}" stroke="#e4e4e8"/>`, `<text x="${M.l - 6}" y="${y(v) + 4}" text-anchor="end">${Math.round(v)}</text>`);
  }
  for (let i = 0; i <= 6; i++) {
    const v = (xMax / 6) * i;
    out.push(`<text x="${x(v)}" y="${H - M.b + 18}" text-anchor="middle">${v.toFixed(v < 10 ? 1 : 0)}</text>`);
  }
  out.push(`<text x="${(W + M.l) / 2}" y="${H - 10}" text-anchor="middle">minutes</text>`);
  series.forEach((c, i) => {
    const start = samples[0]?.[c.key] ?? 0;
    out.push(`<rect x="${M.l}" y="${y(start * 1.1)}" width="${W - M.l - M.r}" height="${y(start) - y(start * 1.1)}" fill="${c.color}" opacity="0.08"/>`);
    const pts = samples.map((s) => `${x(s.min).toFixed(1)},${y(s[c.key]).toFixed(1)}`).join(" ");
    out.push(`<polyline points="${pts}" fill="none" stroke="${c.color}" stroke-width="2"/>`);
    for (const s of samples) out.push(`<circle cx="${x(s.min)}" cy="${y(s[c.key])}" r="${s.phase === "running" ? 2.5 : 4}" fill="${c.color}"/>`);
    out.push(`<rect x="${M.l + 12}" y="${M.t + 6 + i * 18}" width="12" height="3" fill="${c.color}"/>`, `<text x="${M.l + 30}" y="${M.t + 11 + i * 18}">${esc(c.label)}</text>`);
  });
  out.push(`<text x="${M.l + 12}" y="${M.t + 11 + series.length * 18}" fill="#73757f">shaded: start level to +10 %; big dots: start, and after the tasks ended and the view closed</text>`);
  out.push("</svg>");
  return out.join("");
}
