/** relativeTime renders a millisecond timestamp as "now", "5m", "3h", "2d" or a date. */
export function relativeTime(ms: number, now: number = Date.now()): string {
  if (!ms) return "";
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 45) return "now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h}h`;
  const d = Math.round(h / 24);
  if (d < 30) return `${d}d`;
  return new Date(ms).toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

const localTimeOptions: Intl.DateTimeFormatOptions = { weekday: "short", year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" };
let localFormat: Intl.DateTimeFormat | undefined;

/**
 * localTime renders a timestamp (epoch ms or an ISO string) in the user's
 * local time zone and locale, for tooltips: "Tue, Nov 24, 2026, 04:40:26".
 * Every message row calls it: one formatter is made once, not one per call
 * (toLocaleString builds a new one each time, ~30× the cost).
 */
export function localTime(t: number | string | undefined | null): string {
  if (t === undefined || t === null || t === "" || t === 0) return "";
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  localFormat ??= new Intl.DateTimeFormat(undefined, localTimeOptions);
  return localFormat.format(d);
}
