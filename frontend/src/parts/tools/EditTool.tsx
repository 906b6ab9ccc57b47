import { showsEffect } from "../toolWording";
import { PathLink } from "../PathLink";
import type { ToolProps, ToolRenderer } from "./types";
import type { PatchHunk } from "../../timeline/types";
import { DiffHunks, countChanges, hunksFromTexts } from "./Diff";
import { str, type JsonObject } from "../util";

function filePath(p: ToolProps): string {
  return p.view.result?.structuredResult?.filePath || str(p.input, "file_path", "filePath", "path", "notebook_path");
}

/**
 * editHunks picks the best diff source: the result's structuredPatch, else
 * the edit's old/new strings (Claude Edit/MultiEdit, OpenCode edit), else a
 * written file's content as an all-added diff against the original.
 */
export function editHunks(p: ToolProps): { hunks: PatchHunk[]; created: boolean } {
  const sr = p.view.result?.structuredResult;
  if (sr?.kind === "write" && sr.structuredPatch && sr.structuredPatch.length > 0) {
    return { hunks: sr.structuredPatch, created: sr.operation === "create" };
  }
  const edits = p.input.edits;
  if (Array.isArray(edits)) {
    const hunks: PatchHunk[] = [];
    for (const e of edits) {
      if (e && typeof e === "object" && !Array.isArray(e)) {
        const o = e as JsonObject;
        hunks.push(...hunksFromTexts(str(o, "old_string", "oldString"), str(o, "new_string", "newString")));
      }
    }
    return { hunks, created: false };
  }
  const oldS = str(p.input, "old_string", "oldString");
  const newS = str(p.input, "new_string", "newString");
  if (oldS || newS) return { hunks: hunksFromTexts(oldS, newS), created: false };
  const content = sr?.content ?? str(p.input, "content");
  if (content) {
    const orig = sr?.originalFile ?? "";
    return { hunks: hunksFromTexts(orig, content), created: !orig };
  }
  return { hunks: [], created: false };
}

/** firstChangedLine is the first changed line when the agent reported real line numbers (0 otherwise). */
function firstChangedLine(p: ToolProps): number {
  const sr = p.view.result?.structuredResult;
  return sr?.structuredPatch?.[0]?.newStart ?? 0;
}

function Body(p: ToolProps) {
  const { hunks } = editHunks(p);
  return (
    <div className="jc-tool-edit">
      {p.phase && !showsEffect(p.phase) ? (
        <div className="jc-meta jc-tool-edit__proposed" data-testid="not-applied">
          {p.phase === "awaiting" ? "Proposed change, waiting for your approval:" : "Proposed change, not applied:"}
        </div>
      ) : null}
      {p.view.state === "error" && p.output ? <pre className="jc-output__pre is-error">{p.output}</pre> : null}
      {hunks.length > 0 ? <DiffHunks hunks={hunks} /> : <div className="jc-meta">No changes to show</div>}
    </div>
  );
}

export const EditTool: ToolRenderer = {
  verb: (p) => {
    const { created } = editHunks(p);
    const done = p.view.state === "completed";
    if (created) return done ? "Created" : "Creating";
    return done ? "Edited" : "Editing";
  },
  summary: (p) => {
    const { hunks } = editHunks(p);
    const { added, removed } = countChanges(hunks);
    return (
      <>
        {filePath(p) ? <PathLink path={filePath(p)} line={firstChangedLine(p)} /> : <code>{p.view.use.toolName}</code>}
        {added || removed ? (
          <span className="jc-diffstat">
            <span className="is-add">+{added}</span> <span className="is-del">−{removed}</span>
          </span>
        ) : null}
      </>
    );
  },
  Body,
  defaultOpen: () => true,
};
