// What the task screens compute from a task list (titles, filters, counts).
// The store's own list operations live in state/taskList.ts.

import type { Task } from "../../bridge/types";

/** taskTitle is what a list shows for a task: its name, else the prompt's first line. */
export function taskTitle(task: Pick<Task, "name" | "prompt">): string {
  const name = task.name.trim();
  if (name) return name;
  const first = task.prompt.trim().split("\n", 1)[0] ?? "";
  return first.length > 80 ? first.slice(0, 79) + "…" : first || "Untitled task";
}

/** projectActivity is what a project's sidebar entry shows: "waiting" if any
 * task waits for the user, else "busy" if any runs, else "". */
export function projectActivity(tasks: Task[] | undefined): "waiting" | "busy" | "" {
  let busy = false;
  for (const t of tasks ?? []) {
    const ind = t.indicator || (t.status === "waiting" ? "waiting" : t.status === "running" ? "busy" : "");
    if (ind === "waiting") return "waiting";
    if (ind === "busy") busy = true;
  }
  return busy ? "busy" : "";
}

/** filterTasks keeps the tasks whose title, prompt, backend or model contain
 * every word of the query (case-insensitive); an empty query keeps all. */
export function filterTasks(tasks: Task[], query: string): Task[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return tasks;
  return tasks.filter((t) => {
    const hay = `${taskTitle(t)}\n${t.prompt}\n${t.backend}\n${t.model}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** unreadCount counts tasks with unread activity. */
export function unreadCount(tasks: Task[] | undefined): number {
  return (tasks ?? []).reduce((n, t) => n + (t.hasUnread ? 1 : 0), 0);
}
