// OpenActions: the task's folder (its worktree, else the project folder) in
// the user's editor, the system terminal or the file manager.

import { openFolder, openPath, openTerminal } from "../../lib/opener";

export function OpenActions({ taskId }: { taskId: string }) {
  return (
    <div className="jc-open-actions" role="group" aria-label="Open the task's folder">
      <button type="button" className="jc-task-view__pane" data-testid="open-editor" title="Open the task's folder in your editor" onClick={() => void openPath(taskId, ".")}>
        Editor
      </button>
      <button type="button" className="jc-task-view__pane" data-testid="open-terminal" title="Open a terminal in the task's folder" onClick={() => void openTerminal(taskId)}>
        Terminal
      </button>
      <button type="button" className="jc-task-view__pane" data-testid="open-folder" title="Show the task's folder in the file manager" onClick={() => void openFolder(taskId)}>
        Folder
      </button>
    </div>
  );
}
