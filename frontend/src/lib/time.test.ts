import { expect, test } from "vitest";
import { localTime, relativeTime } from "./time";

test("localTime renders as toLocaleString with the same options, from epoch ms or an ISO string", () => {
  const opts: Intl.DateTimeFormatOptions = { weekday: "short", year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" };
  for (const t of [Date.UTC(2026, 10, 24, 4, 40, 26), "2026-01-01T23:59:59Z", 1]) {
    expect(localTime(t)).toBe(new Date(t).toLocaleString(undefined, opts));
  }
  expect(localTime("2026-11-24T04:40:26Z")).toMatch(/2026/);
});

test("localTime leaves nothing for no time and the text itself for a value that is not a time", () => {
  expect(localTime(undefined)).toBe("");
  expect(localTime(null)).toBe("");
  expect(localTime("")).toBe("");
  expect(localTime(0)).toBe("");
  expect(localTime("not a time")).toBe("not a time");
});

test("relativeTime", () => {
  const now = Date.UTC(2026, 10, 27, 12);
  expect(relativeTime(now - 10_000, now)).toBe("now");
  expect(relativeTime(now - 5 * 60_000, now)).toBe("5m");
  expect(relativeTime(now - 3 * 3600_000, now)).toBe("3h");
  expect(relativeTime(now - 2 * 86400_000, now)).toBe("2d");
  expect(relativeTime(0, now)).toBe("");
});
