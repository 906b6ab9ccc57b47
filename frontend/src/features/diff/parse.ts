// Pure helpers of the diff view: a unified-diff hunk parser, the pairing
// of deleted/added runs into side-by-side rows, and the file tree with
// aggregated +/- counts. No React, no I/O (tested with vitest).

import type { FileChange } from "./types";

export type LineKind = "context" | "add" | "del" | "note";

export interface DiffLine {
  kind: LineKind;
  text: string;
  /** Line number in the old file (context and del). */
  oldNo?: number;
  /** Line number in the new file (context and add). */
  newNo?: number;
}

export interface Hunk {
  header: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** The function/section name git prints after the second "@@". */
  section: string;
  lines: DiffLine[];
}

const HUNK_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/**
 * parseHunks reads the hunks of one file's unified diff. Lines before the
 * first "@@" (file headers) are skipped; "\ No newline at end of file"
 * becomes a note line; a malformed hunk header ends the parse there.
 */
export function parseHunks(patch: string): Hunk[] {
  const hunks: Hunk[] = [];
  if (!patch) return hunks;
  const lines = patch.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  let cur: Hunk | null = null;
  let oldNo = 0;
  let newNo = 0;
  for (const raw of lines) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.startsWith("@@")) {
      const m = HUNK_RE.exec(line);
      if (!m) break;
      cur = {
        header: line,
        oldStart: Number(m[1]),
        oldLines: m[2] === undefined ? 1 : Number(m[2]),
        newStart: Number(m[3]),
        newLines: m[4] === undefined ? 1 : Number(m[4]),
        section: m[5] ?? "",
        lines: [],
      };
      hunks.push(cur);
      oldNo = cur.oldStart;
      newNo = cur.newStart;
      continue;
    }
    if (!cur) continue;
    const tag = line[0];
    const text = line.slice(1);
    if (tag === "+") {
      cur.lines.push({ kind: "add", text, newNo: newNo++ });
    } else if (tag === "-") {
      cur.lines.push({ kind: "del", text, oldNo: oldNo++ });
    } else if (tag === "\\") {
      cur.lines.push({ kind: "note", text: line.slice(2) });
    } else {
      // " " context; an empty line is a context line whose space was trimmed.
      cur.lines.push({ kind: "context", text: tag === " " ? text : line, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return hunks;
}

export interface SideCell {
  kind: LineKind;
  text: string;
  no?: number;
}

export type SplitRow =
  | { type: "hunk"; header: string }
  | { type: "line"; left: SideCell | null; right: SideCell | null };

/**
 * sideBySide turns hunks into two-column rows: context lines on both
 * sides, each run of deletions paired line by line with the run of
 * additions that follows it (the shorter side padded with empty cells).
 */
export function sideBySide(hunks: Hunk[]): SplitRow[] {
  const rows: SplitRow[] = [];
  for (const h of hunks) {
    rows.push({ type: "hunk", header: h.header });
    let dels: SideCell[] = [];
    let adds: SideCell[] = [];
    const flush = () => {
      const n = Math.max(dels.length, adds.length);
      for (let i = 0; i < n; i++) {
        rows.push({ type: "line", left: dels[i] ?? null, right: adds[i] ?? null });
      }
      dels = [];
      adds = [];
    };
    for (const l of h.lines) {
      switch (l.kind) {
        case "del":
          if (adds.length > 0) flush();
          dels.push({ kind: "del", text: l.text, no: l.oldNo });
          break;
        case "add":
          adds.push({ kind: "add", text: l.text, no: l.newNo });
          break;
        case "context":
          flush();
          rows.push({
            type: "line",
            left: { kind: "context", text: l.text, no: l.oldNo },
            right: { kind: "context", text: l.text, no: l.newNo },
          });
          break;
        case "note": {
          flush();
          const note: SideCell = { kind: "note", text: l.text };
          rows.push({ type: "line", left: note, right: note });
          break;
        }
        default: {
          const _exhaustive: never = l.kind;
          void _exhaustive;
        }
      }
    }
    flush();
  }
  return rows;
}

export interface TreeNode {
  /** Display name; compressed folders join their names with "/". */
  name: string;
  /** Full path (folders: without trailing slash). */
  path: string;
  type: "folder" | "file";
  added: number;
  removed: number;
  /** Number of changed files at or under this node. */
  files: number;
  file?: FileChange;
  children: TreeNode[];
}

/**
 * buildTree nests changed files into folders, sums +/- counts upwards,
 * sorts folders before files (each by name) and compresses chains of
 * single-folder folders ("src/app/ui") as code review tools do.
 */
export function buildTree(files: FileChange[]): TreeNode {
  const root: TreeNode = { name: "", path: "", type: "folder", added: 0, removed: 0, files: 0, children: [] };
  for (const f of files) {
    const parts = f.path.split("/").filter(Boolean);
    let node = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const path = parts.slice(0, i + 1).join("/");
      let next = node.children.find((c) => c.type === "folder" && c.path === path);
      if (!next) {
        next = { name: parts[i], path, type: "folder", added: 0, removed: 0, files: 0, children: [] };
        node.children.push(next);
      }
      node = next;
    }
    node.children.push({
      name: parts[parts.length - 1] ?? f.path,
      path: f.path,
      type: "file",
      added: f.added,
      removed: f.removed,
      files: 1,
      file: f,
      children: [],
    });
  }
  const finish = (n: TreeNode): TreeNode => {
    if (n.type === "file") return n;
    n.children = n.children.map(finish);
    n.children.sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === "folder" ? -1 : 1));
    n.added = n.children.reduce((s, c) => s + c.added, 0);
    n.removed = n.children.reduce((s, c) => s + c.removed, 0);
    n.files = n.children.reduce((s, c) => s + c.files, 0);
    // Compress a folder whose only child is a folder.
    if (n.path !== "" && n.children.length === 1 && n.children[0].type === "folder") {
      const only = n.children[0];
      return { ...only, name: `${n.name}/${only.name}` };
    }
    return n;
  };
  return finish(root);
}

/** flattenFiles lists the files of a tree in display order. */
export function flattenFiles(node: TreeNode): FileChange[] {
  if (node.type === "file") return node.file ? [node.file] : [];
  return node.children.flatMap(flattenFiles);
}

export interface Marker {
  letter: string;
  label: string;
  tone: "add" | "del" | "mod" | "ren" | "warn";
}

/** marker is the one-letter badge of a file in the tree. */
export function marker(f: FileChange): Marker {
  switch (f.status) {
    case "added":
      return { letter: "A", label: "added", tone: "add" };
    case "deleted":
      return { letter: "D", label: "deleted", tone: "del" };
    case "renamed":
      return { letter: "R", label: `renamed from ${f.oldPath ?? "?"}${f.similarity ? ` (${f.similarity}% similar)` : ""}`, tone: "ren" };
    case "copied":
      return { letter: "C", label: `copied from ${f.oldPath ?? "?"}`, tone: "ren" };
    case "type-changed":
      return { letter: "T", label: "type changed", tone: "mod" };
    case "unmerged":
      return { letter: "U", label: "unmerged (conflict)", tone: "warn" };
    default:
      return { letter: "M", label: "modified", tone: "mod" };
  }
}

/** fileNotes are the badges shown above a file's diff. */
export function fileNotes(f: FileChange): string[] {
  const notes: string[] = [];
  if (f.status === "renamed" || f.status === "copied") {
    notes.push(`${f.status === "copied" ? "Copied" : "Renamed"} from ${f.oldPath ?? "?"}${f.similarity ? ` (${f.similarity}% similar)` : ""}`);
  }
  if (f.status === "added") notes.push("New file");
  if (f.status === "deleted") notes.push("Deleted file");
  if (f.oldMode && f.newMode && f.oldMode !== f.newMode) notes.push(`Mode ${f.oldMode} → ${f.newMode}`);
  if (f.binary) notes.push("Binary file");
  return notes;
}

/** diffSignature changes whenever what the view shows would change; the
 * poller uses it to skip identical refreshes. */
export function diffSignature(files: FileChange[], head: string): string {
  let s = head;
  for (const f of files) {
    s += `\n${f.status}:${f.oldPath ?? ""}:${f.path}:${f.added}:${f.removed}:${f.oldMode ?? ""}:${f.newMode ?? ""}:${f.patchOmitted ? 1 : 0}:${f.patch.length}:${hash(f.patch)}`;
  }
  return s;
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}
