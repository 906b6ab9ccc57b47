import { describeRule, formatRule, parseRule, ruleCovers, subjectOf, suggestRule } from "./ruleScope";

test("a command's suggested rule is an editable prefix that covers a second command", () => {
  const s = subjectOf({ input: { command: "npm test -- --coverage" } });
  expect(s).toEqual({ type: "command", value: "npm test -- --coverage" });
  const r = suggestRule(s);
  expect(formatRule(r)).toBe("npm test:*");
  expect(ruleCovers(r, { type: "command", value: "npm test --watch" })).toBe(true);
  expect(ruleCovers(r, { type: "command", value: "npm test" })).toBe(true);
  expect(ruleCovers(r, { type: "command", value: "npm testx" })).toBe(false);
  expect(ruleCovers(r, { type: "command", value: "npm test && rm -rf ~" })).toBe(false);
  expect(describeRule("Bash", r)).toContain("npm test");
});

test("parseRule: exact, prefix and folder as typed", () => {
  expect(parseRule("command", "npm test:*")).toEqual({ matchKind: "prefix", pattern: "npm test" });
  expect(parseRule("command", "npm test")).toEqual({ matchKind: "exact", pattern: "npm test" });
  expect(parseRule("command", "a; b:*")).toHaveProperty("error");
  expect(parseRule("path", "/w/src/")).toEqual({ matchKind: "folder", pattern: "/w/src" });
  expect(parseRule("path", "/w/src/**")).toEqual({ matchKind: "folder", pattern: "/w/src" });
  expect(parseRule("path", "/w/../etc/")).toHaveProperty("error");
  expect(parseRule("path", "/w/a.txt")).toEqual({ matchKind: "exact", pattern: "/w/a.txt" });
  expect(parseRule("command", "  ")).toHaveProperty("error");
});

test("a folder rule covers files inside it only; an exact rule one subject", () => {
  const s = subjectOf({ input: { file_path: "/w/src/a.ts" } });
  const r = suggestRule(s);
  expect(r).toEqual({ matchKind: "folder", pattern: "/w/src" });
  expect(formatRule(r)).toBe("/w/src/");
  expect(ruleCovers(r, { type: "path", value: "/w/src/deep/b.ts" })).toBe(true);
  expect(ruleCovers(r, { type: "path", value: "/w/srcx/b.ts" })).toBe(false);
  expect(ruleCovers(r, { type: "path", value: "/w/src/../../etc/passwd" })).toBe(false);
  expect(ruleCovers({ matchKind: "exact", pattern: "/w/a" }, { type: "path", value: "/w/a" })).toBe(true);
  expect(ruleCovers({ matchKind: "exact", pattern: "npm test" }, { type: "command", value: "npm test -x" })).toBe(false);
});
