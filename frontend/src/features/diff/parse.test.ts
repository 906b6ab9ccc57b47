import { describe, expect, it } from "vitest";
import { buildTree, diffSignature, fileNotes, flattenFiles, marker, parseHunks, sideBySide } from "./parse";
import type { FileChange } from "./types";

// Real `git diff` output (hunks only), as gitx sends it.
const PATCH = [
  "@@ -1,5 +1,6 @@ package a",
  " package a",
  " ",
  " func A() int {",
  "-\treturn 1",
  "+\t// two now",
  "+\treturn 2",
  " }",
  "@@ -10,3 +11,2 @@ func B() {",
  " x",
  "-y",
  "-z",
  "+Z",
  "\\ No newline at end of file",
  "",
].join("\n");

function fc(path: string, over: Partial<FileChange> = {}): FileChange {
  return { path, status: "modified", binary: false, added: 1, removed: 0, patch: "", ...over };
}

describe("parseHunks", () => {
  it("parses headers, kinds and line numbers", () => {
    const hs = parseHunks(PATCH);
    expect(hs).toHaveLength(2);
    expect(hs[0]).toMatchObject({ oldStart: 1, oldLines: 5, newStart: 1, newLines: 6, section: "package a" });
    expect(hs[0].lines.map((l) => [l.kind, l.oldNo, l.newNo, l.text])).toEqual([
      ["context", 1, 1, "package a"],
      ["context", 2, 2, ""],
      ["context", 3, 3, "func A() int {"],
      ["del", 4, undefined, "\treturn 1"],
      ["add", undefined, 4, "\t// two now"],
      ["add", undefined, 5, "\treturn 2"],
      ["context", 5, 6, "}"],
    ]);
    expect(hs[1].lines.map((l) => [l.kind, l.oldNo, l.newNo])).toEqual([
      ["context", 10, 11],
      ["del", 11, undefined],
      ["del", 12, undefined],
      ["add", undefined, 12],
      ["note", undefined, undefined],
    ]);
    expect(hs[1].lines[4].text).toBe("No newline at end of file");
  });

  it("handles omitted counts, new files, empty and garbage input", () => {
    expect(parseHunks("@@ -1 +1 @@\n-a\n+b\n")[0]).toMatchObject({ oldLines: 1, newLines: 1, section: "" });
    const added = parseHunks("@@ -0,0 +1,2 @@\n+one\n+two\n")[0];
    expect(added.lines.map((l) => l.newNo)).toEqual([1, 2]);
    expect(parseHunks("")).toEqual([]);
    expect(parseHunks("diff --git a/x b/x\nindex 1..2\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b")).toHaveLength(1);
    expect(parseHunks("@@ nonsense @@\n+a")).toEqual([]);
    expect(parseHunks("@@ -1 +1 @@\r\n-a\r\n+b\r\n")[0].lines.map((l) => l.text)).toEqual(["a", "b"]);
  });
});

describe("sideBySide", () => {
  it("pairs deletion runs with the additions that follow", () => {
    const rows = sideBySide(parseHunks(PATCH));
    const show = rows.map((r) =>
      r.type === "hunk" ? `@@` : `${r.left ? `${r.left.kind[0]}${r.left.no ?? ""}` : "-"}|${r.right ? `${r.right.kind[0]}${r.right.no ?? ""}` : "-"}`,
    );
    expect(show).toEqual([
      "@@",
      "c1|c1",
      "c2|c2",
      "c3|c3",
      "d4|a4",
      "-|a5",
      "c5|c6",
      "@@",
      "c10|c11",
      "d11|a12",
      "d12|-",
      "n|n",
    ]);
  });

  it("does not pair additions with later deletions", () => {
    const rows = sideBySide(parseHunks("@@ -1,2 +1,2 @@\n+new\n-old\n context\n"));
    expect(rows.slice(1).map((r) => (r.type === "line" ? [r.left?.kind ?? null, r.right?.kind ?? null] : null))).toEqual([
      [null, "add"],
      ["del", null],
      ["context", "context"],
    ]);
  });
});

describe("buildTree", () => {
  const files = [
    fc("src/app/ui/button.tsx", { added: 3, removed: 1 }),
    fc("src/app/ui/input.tsx", { added: 2 }),
    fc("README.md", { added: 1, removed: 4 }),
    fc("src/main.go", { added: 5, status: "added" }),
    fc("docs/a b/c.md", { added: 0, removed: 2, status: "deleted" }),
  ];

  it("nests, sums, sorts folders first and compresses single-folder chains", () => {
    const root = buildTree(files);
    const show = (n: ReturnType<typeof buildTree>, depth = 0): string[] => [
      `${"  ".repeat(depth)}${n.name || "/"} +${n.added} -${n.removed} (${n.files})`,
      ...n.children.flatMap((c) => show(c, depth + 1)),
    ];
    expect(show(root)).toEqual([
      "/ +11 -7 (5)",
      "  docs/a b +0 -2 (1)",
      "    c.md +0 -2 (1)",
      "  src +10 -1 (3)",
      "    app/ui +5 -1 (2)",
      "      button.tsx +3 -1 (1)",
      "      input.tsx +2 -0 (1)",
      "    main.go +5 -0 (1)",
      "  README.md +1 -4 (1)",
    ]);
    expect(flattenFiles(root).map((f) => f.path)).toEqual([
      "docs/a b/c.md",
      "src/app/ui/button.tsx",
      "src/app/ui/input.tsx",
      "src/main.go",
      "README.md",
    ]);
  });

  it("handles no files", () => {
    expect(buildTree([])).toMatchObject({ files: 0, children: [] });
  });
});

describe("markers and notes", () => {
  it("labels every kind of change", () => {
    expect(marker(fc("a", { status: "added" })).letter).toBe("A");
    expect(marker(fc("a", { status: "deleted" })).letter).toBe("D");
    expect(marker(fc("a")).letter).toBe("M");
    expect(marker(fc("b", { status: "renamed", oldPath: "a", similarity: 85 })).label).toBe("renamed from a (85% similar)");
    expect(marker(fc("a", { status: "unmerged" })).tone).toBe("warn");
    expect(fileNotes(fc("run.sh", { oldMode: "100644", newMode: "100755" }))).toEqual(["Mode 100644 → 100755"]);
    expect(fileNotes(fc("x.png", { status: "added", binary: true, newMode: "100644" }))).toEqual(["New file", "Binary file"]);
    expect(fileNotes(fc("n", { status: "renamed", oldPath: "o", similarity: 100 }))).toEqual(["Renamed from o (100% similar)"]);
  });

  it("signature changes with content", () => {
    const a = [fc("x", { patch: "@@ -1 +1 @@\n-a\n+b\n" })];
    const b = [fc("x", { patch: "@@ -1 +1 @@\n-a\n+c\n" })];
    expect(diffSignature(a, "h")).toBe(diffSignature([{ ...a[0] }], "h"));
    expect(diffSignature(a, "h")).not.toBe(diffSignature(b, "h"));
    expect(diffSignature(a, "h")).not.toBe(diffSignature(a, "h2"));
  });
});
