// TaskLinks: the task a task was forked or spawned from, and the tasks
// forked or spawned from it, as links; plus "Spawn a sub-task".

import { useEffect, useMemo, useState } from "react";
import { useAppStore } from "../../state/context";
import { wailsForkApi, type ForkApi, type Links, type TaskLink } from "./api";
import { ForkDialog, type ForkRequest } from "./ForkDialog";
import "./fork.css";

export function TaskLinks({ taskId, backend, api: given, refresh = 0 }: { taskId: string; backend: string; api?: ForkApi; refresh?: number }) {
  const api = useMemo(() => given ?? wailsForkApi(), [given]);
  const store = useAppStore();
  const [links, setLinks] = useState<Links>({ children: [] });
  const [req, setReq] = useState<ForkRequest | null>(null);
  useEffect(() => {
    let alive = true;
    api.links(taskId).then((l) => alive && setLinks(l), () => {});
    return () => {
      alive = false;
    };
  }, [api, taskId, refresh]);
  const open = (l: TaskLink) => store.getState().openScreen({ kind: "task", taskId: l.taskId });
  return (
    <div className="jc-links" data-testid="task-links">
      {links.parent ? (
        <span>
          {links.parent.kind === "fork" ? "Forked from" : "Sub-task of"}{" "}
          <button type="button" className="jc-links__task" onClick={() => links.parent && open(links.parent)}>{links.parent.name || "task"}</button>
        </span>
      ) : null}
      {links.children.length ? (
        <span>
          {links.children.map((c) => (
            <button key={c.taskId} type="button" className="jc-links__task" title={c.kind === "fork" ? "fork" : "sub-task"} onClick={() => open(c)}>
              {c.kind === "fork" ? "⑂ " : "↳ "}
              {c.name || "task"}
            </button>
          ))}
        </span>
      ) : null}
      <button type="button" className="jc-links__spawn" onClick={() => setReq({ kind: "spawn", taskId, backend })}>+ Sub-task</button>
      {req ? <ForkDialog req={req} api={api} onClose={() => setReq(null)} /> : null}
    </div>
  );
}
