import { structuredPatch } from "diff";
import type { PatchHunk } from "../../timeline/types";

/** hunksFromTexts computes unified-diff hunks between two texts. */
export function hunksFromTexts(oldText: string, newText: string, context = 3): PatchHunk[] {
  return structuredPatch("a", "b", oldText, newText, undefined, undefined, { context }).hunks.map((h) => ({
    oldStart: h.oldStart,
    oldLines: h.oldLines,
    newStart: h.newStart,
    newLines: h.newLines,
    lines: h.lines.filter((l) => !l.startsWith("\\")),
  }));
}

export function countChanges(hunks: readonly PatchHunk[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    for (const l of h.lines) {
      if (l.startsWith("+")) added++;
      else if (l.startsWith("-")) removed++;
    }
  }
  return { added, removed };
}

/** DiffHunks renders hunks with old/new line numbers. */
export function DiffHunks({ hunks }: { hunks: readonly PatchHunk[] }) {
  return (
    <div className="jc-diff" role="table" aria-label="diff">
      {hunks.map((h, hi) => {
        let o = h.oldStart;
        let n = h.newStart;
        return (
          <div className="jc-diff__hunk" key={hi}>
            <div className="jc-diff__header">
              @@ -{h.oldStart},{h.oldLines} +{h.newStart},{h.newLines} @@
            </div>
            {h.lines.map((l, li) => {
              const sign = l[0];
              let cls = "ctx";
              let on: number | "" = "";
              let nn: number | "" = "";
              if (sign === "+") {
                cls = "add";
                nn = n++;
              } else if (sign === "-") {
                cls = "del";
                on = o++;
              } else {
                on = o++;
                nn = n++;
              }
              return (
                <div className={`jc-diff__line is-${cls}`} key={li} role="row">
                  <span className="jc-diff__no">{on}</span>
                  <span className="jc-diff__no">{nn}</span>
                  <span className="jc-diff__sign">{sign === "+" || sign === "-" ? sign : " "}</span>
                  <span className="jc-diff__src">{l.slice(1)}</span>
                </div>
              );
            })}
          </div>
        );
      })}
    </div>
  );
}
