// PathLink is a file path the user can open in their editor (at a line when
// known). Inside a tool card's header button it stops the click from
// toggling the card. Without a task (tests, previews) it is plain code.

import type { ReactNode } from "react";
import { openPath, useTaskId } from "../lib/opener";

export function PathLink({ path, line, children }: { path: string; line?: number; children?: ReactNode }) {
  const taskId = useTaskId();
  if (!taskId || !path) return <code title={path}>{children ?? path}</code>;
  const open = (e: React.SyntheticEvent) => {
    e.stopPropagation();
    e.preventDefault();
    void openPath(taskId, path, line ?? 0);
  };
  return (
    <code
      className="jc-path-link"
      role="link"
      tabIndex={0}
      title={`${path}${line ? `:${line}` : ""} — open in your editor`}
      data-testid="path-link"
      data-path={path}
      onClick={open}
      onKeyDown={(e) => {
        if (e.key === "Enter") open(e);
      }}
    >
      {children ?? path}
    </code>
  );
}
