// opener: the task's files, folder and terminal, opened on the desktop by
// the Go OpenService (backend/opener). Paths resolve inside the task's
// worktree only; the Go side refuses anything else.

import { createContext, useContext } from "react";
import { OpenFolder, OpenInEditor, OpenInTerminal } from "../bridge/wailsjs/go/services/OpenService";
import { showNotice } from "./links";

/** TaskIdContext names the task whose files the paths shown belong to. */
export const TaskIdContext = createContext<string | null>(null);

export function useTaskId(): string | null {
  return useContext(TaskIdContext);
}

async function run(what: string, f: () => Promise<void>): Promise<void> {
  try {
    await Promise.resolve().then(f);
  } catch (e) {
    showNotice(`Could not ${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** openPath opens a task's file at a line (0: unknown) in the user's editor. */
export function openPath(taskId: string, path: string, line = 0): Promise<void> {
  return run("open the file", () => OpenInEditor(taskId, path, Math.max(0, Math.floor(line))));
}

export function openTerminal(taskId: string): Promise<void> {
  return run("open a terminal", () => OpenInTerminal(taskId));
}

export function openFolder(taskId: string): Promise<void> {
  return run("open the folder", () => OpenFolder(taskId));
}
