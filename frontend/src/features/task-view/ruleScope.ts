// ruleScope says what an "always allow" rule covers, before it is made, and
// lets the user edit it. It mirrors the Go matcher
// (backend/orchestrator/rules.go, Matches) so the preview tells the truth:
//
//   - a command: exact ("npm test" only) or prefix, written "npm test:*"
//     (the command, or the command followed by a space and arguments with no
//     shell control characters);
//   - a path: exact, or a folder, written "src/" (any path inside it);
//   - anything else: exact.

import type { Json, Request } from "../../timeline/types";
import { asObject, str } from "../../parts/util";

export type MatchKind = "exact" | "prefix" | "folder";

export interface RuleSpec {
  matchKind: MatchKind;
  pattern: string;
}

export type SubjectType = "command" | "path" | "other";

export interface Subject {
  type: SubjectType;
  value: string;
}

const PATH_KEYS = ["file_path", "filePath", "path", "notebook_path"] as const;
const SHELL_CONTROL = /[;&|`$><\n\r]/;

/** subjectOf is what a rule about this request compares (as the Go SubjectOf). */
export function subjectOf(req: Pick<Request, "input" | "patterns">): Subject {
  const inp = asObject(req.input as Json | undefined);
  const cmd = typeof inp.command === "string" ? inp.command.trim() : "";
  if (cmd) return { type: "command", value: cmd };
  const p = str(inp, ...PATH_KEYS);
  if (p) return { type: "path", value: p };
  if (req.patterns?.length) return { type: "other", value: req.patterns.join("\n") };
  return { type: "other", value: "" };
}

/**
 * suggestRule proposes what "always" should cover: a command's program and
 * its subcommand as a prefix ("npm test:*", "git status:*"), a file's folder,
 * anything else exactly.
 */
export function suggestRule(s: Subject): RuleSpec {
  if (s.type === "command") {
    if (SHELL_CONTROL.test(s.value)) return { matchKind: "exact", pattern: s.value };
    const words = s.value.split(/\s+/);
    const n = words.length > 1 && /^[A-Za-z][\w.:-]*$/.test(words[1]) ? 2 : 1;
    return { matchKind: "prefix", pattern: words.slice(0, n).join(" ") };
  }
  if (s.type === "path") {
    const dir = dirname(s.value);
    return dir ? { matchKind: "folder", pattern: dir } : { matchKind: "exact", pattern: s.value };
  }
  return { matchKind: "exact", pattern: s.value };
}

function dirname(p: string): string {
  const i = p.replace(/\/+$/, "").lastIndexOf("/");
  if (i <= 0) return i === 0 ? "/" : "";
  return p.slice(0, i);
}

/** formatRule writes a rule as the user edits it: "npm test:*", "src/", "npm test". */
export function formatRule(r: RuleSpec): string {
  switch (r.matchKind) {
    case "prefix":
      return `${r.pattern}:*`;
    case "folder":
      return r.pattern.endsWith("/") ? r.pattern : `${r.pattern}/`;
    default:
      return r.pattern;
  }
}

/** parseRule reads what the user typed for a subject of this type. */
export function parseRule(type: SubjectType, text: string): RuleSpec | { error: string } {
  const t = text.trim();
  if (!t) return { error: "Say what the rule covers." };
  if (type === "command") {
    const m = /^(.*?)(?::\*| \*)$/.exec(t);
    const pattern = (m ? m[1] : t).trim();
    if (!pattern) return { error: "A prefix needs at least one word." };
    if (m && SHELL_CONTROL.test(pattern)) return { error: "A prefix cannot contain ; & | ` $ > < or a line break." };
    return { matchKind: m ? "prefix" : "exact", pattern };
  }
  if (type === "path") {
    if (t.endsWith("/") || t.endsWith("/**") || t.endsWith("/*")) {
      const pattern = cleanPath(t.replace(/\/\*\*?$/, "").replace(/\/+$/, "") || "/");
      if (pattern.split("/").includes("..")) return { error: "A folder cannot contain “..”." };
      return { matchKind: "folder", pattern };
    }
    return { matchKind: "exact", pattern: t };
  }
  return { matchKind: "exact", pattern: t };
}

function cleanPath(p: string): string {
  const abs = p.startsWith("/");
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (!seg || seg === ".") continue;
    out.push(seg);
  }
  return (abs ? "/" : "") + out.join("/");
}

/** ruleCovers reports whether a rule allows a subject (the Go Matches, without the tool name). */
export function ruleCovers(r: RuleSpec, s: Subject): boolean {
  switch (r.matchKind) {
    case "prefix": {
      if (s.type !== "command" || SHELL_CONTROL.test(r.pattern)) return false;
      if (s.value === r.pattern) return true;
      if (!s.value.startsWith(r.pattern + " ")) return false;
      return !SHELL_CONTROL.test(s.value.slice(r.pattern.length + 1));
    }
    case "folder": {
      if (s.type !== "path") return false;
      const p = cleanPath(s.value);
      if (p.split("/").includes("..")) return false;
      const dir = cleanPath(r.pattern);
      return p === dir || p.startsWith(dir === "/" ? "/" : dir + "/");
    }
    default:
      return s.value === r.pattern;
  }
}

/** describeRule says in words what a rule covers: "Bash commands starting with “npm test”". */
export function describeRule(toolName: string, r: RuleSpec): string {
  const tool = toolName || "this tool";
  switch (r.matchKind) {
    case "prefix":
      return `${tool}: “${r.pattern}” and the same command with more arguments`;
    case "folder":
      return `${tool}: any file inside ${formatRule(r)}`;
    default:
      return `${tool}: exactly “${r.pattern}”`;
  }
}

/** ruleSyntax says how to write each kind of rule for a subject type (the rule input's hint). */
export function ruleSyntax(type: SubjectType): string {
  switch (type) {
    case "command":
      return "“npm test:*” = npm test with any arguments; “npm test” = exactly that command";
    case "path":
      return "“src/” = any file in that folder; a path = exactly that file";
    default:
      return "exactly this";
  }
}
