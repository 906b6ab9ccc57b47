import type { ToolProps, ToolRenderer } from "./types";
import type { Json, TodoItem } from "../../timeline/types";

function asTodos(v: Json | undefined): TodoItem[] {
  if (!Array.isArray(v)) return [];
  const out: TodoItem[] = [];
  for (const t of v) {
    if (t && typeof t === "object" && !Array.isArray(t) && typeof t.content === "string") {
      out.push({
        id: typeof t.id === "string" ? t.id : undefined,
        content: t.content,
        status: typeof t.status === "string" ? t.status : "pending",
        activeForm: typeof t.activeForm === "string" ? t.activeForm : undefined,
        priority: typeof t.priority === "string" ? t.priority : undefined,
      });
    }
  }
  return out;
}

export type TodoChange = "added" | "status" | null;

/** todoLists returns the previous and new lists: from the structured result, else from the input. */
export function todoLists(p: ToolProps): { oldTodos: TodoItem[]; newTodos: TodoItem[]; fromResult: boolean } {
  const sr = p.view.result?.structuredResult;
  if (sr?.kind === "todo" && sr.newTodos) return { oldTodos: sr.oldTodos ?? [], newTodos: sr.newTodos, fromResult: true };
  return { oldTodos: [], newTodos: asTodos(p.input.todos), fromResult: false };
}

/** todoChanges says, for each new item, whether it is new or changed status since the old list. */
export function todoChanges(oldTodos: readonly TodoItem[], newTodos: readonly TodoItem[]): TodoChange[] {
  const byKey = new Map<string, TodoItem>();
  for (const t of oldTodos) byKey.set(t.id || t.content, t);
  return newTodos.map((t) => {
    const o = byKey.get(t.id || t.content);
    if (!o) return oldTodos.length > 0 ? "added" : null;
    return o.status !== t.status ? "status" : null;
  });
}

const ICON: Record<string, string> = { completed: "✓", in_progress: "◐", pending: "○", cancelled: "✕" };

/**
 * knownContent finds a todo's text by id in the task's other todo results:
 * an update (Claude's TaskUpdate) may carry only the id and new status.
 */
function knownContent(p: ToolProps, id: string): string {
  for (const r of p.state.toolResults.values()) {
    const sr = r.part.structuredResult;
    if (sr?.kind !== "todo") continue;
    for (const t of [...(sr.newTodos ?? []), ...(sr.oldTodos ?? [])]) if (t.id === id && t.content) return t.content;
  }
  return "";
}

function Body(p: ToolProps) {
  const lists = todoLists(p);
  const fill = (t: TodoItem): TodoItem => (t.content || !t.id ? t : { ...t, content: knownContent(p, t.id) || `#${t.id}` });
  const oldTodos = lists.oldTodos.map(fill);
  const newTodos = lists.newTodos.map(fill);
  const changes = todoChanges(oldTodos, newTodos);
  return (
    <ul className="jc-todos">
      {newTodos.map((t, i) => (
        <li key={t.id || i} className={`jc-todo is-${t.status}${changes[i] ? ` is-changed is-${changes[i]}` : ""}`}>
          <span className="jc-todo__icon" aria-hidden="true">{ICON[t.status] ?? "○"}</span>
          <span className="jc-todo__text">{t.status === "in_progress" && t.activeForm ? t.activeForm : t.content}</span>
          {changes[i] === "added" ? <span className="jc-todo__tag">new</span> : null}
          {changes[i] === "status" ? <span className="jc-todo__tag">{t.status.replace("_", " ")}</span> : null}
        </li>
      ))}
    </ul>
  );
}

export const TodoTool: ToolRenderer = {
  verb: (p) => (p.view.state === "completed" ? "Updated todos" : "Updating todos"),
  summary: (p) => {
    const { newTodos } = todoLists(p);
    const done = newTodos.filter((t) => t.status === "completed").length;
    return <span className="jc-meta">{done}/{newTodos.length} completed</span>;
  },
  Body,
  defaultOpen: () => true,
};
