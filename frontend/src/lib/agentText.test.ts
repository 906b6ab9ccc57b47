import { describe, expect, test } from "vitest";
import { readableAgentText } from "./agentText";

describe("readableAgentText", () => {
  test("Claude's usage-limit code becomes words with the reset time", () => {
    // 1795505659 s = 2026-11-24T07:34:19Z
    expect(readableAgentText("Claude AI usage limit reached|1795505659", "UTC")).toMatch(/^Claude AI usage limit reached; it resets at 0?7:34/);
    expect(readableAgentText("Claude AI usage limit reached|1795505659000", "UTC")).toMatch(/resets at 0?7:34/);
    expect(readableAgentText("Claude AI usage limit reached|1795505659", "UTC")).not.toContain("|");
  });
  test("anything else is left as the agent wrote it", () => {
    for (const s of ["Not logged in · Please run /login", "Claude AI usage limit reached", "usage limit reached|12", ""]) {
      expect(readableAgentText(s)).toBe(s);
    }
  });
});
