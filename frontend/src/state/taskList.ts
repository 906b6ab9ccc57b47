// Pure list operations on the store's task lists (kept outside the
// features so the store depends on no screen).

import type { Task } from "../bridge/types";

/** sortTasks orders newest first (createdAt desc, then id for stability). */
export function sortTasks(tasks: Task[]): Task[] {
  return [...tasks].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/** upsertTask replaces the task with the same id or inserts it, keeping order. */
export function upsertTask(tasks: Task[] | undefined, task: Task): Task[] {
  const list = tasks ?? [];
  const i = list.findIndex((t) => t.id === task.id);
  if (i === -1) return sortTasks([...list, task]);
  const next = list.slice();
  next[i] = task;
  return list[i].createdAt === task.createdAt ? next : sortTasks(next);
}

/** removeTask drops the task with the given id. */
export function removeTask(tasks: Task[] | undefined, id: string): Task[] {
  return (tasks ?? []).filter((t) => t.id !== id);
}
