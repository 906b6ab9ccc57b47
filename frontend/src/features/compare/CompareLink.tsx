// CompareLink: above a task that is part of a comparison, a way back to it.

import { useEffect, useMemo, useState } from "react";
import { useApp } from "../../state/context";
import { wailsCompareApi, type CompareApi } from "./api";
import "./compare.css";

export function CompareLink({ taskId, api: apiProp }: { taskId: string; api?: CompareApi }) {
  const api = useMemo(() => apiProp ?? wailsCompareApi(), [apiProp]);
  const openScreen = useApp((s) => s.openScreen);
  const [group, setGroup] = useState("");
  useEffect(() => {
    let live = true;
    api.groupOfTask(taskId).then((g) => live && setGroup(g ?? ""), () => {});
    return () => {
      live = false;
    };
  }, [api, taskId]);
  if (!group) return null;
  return (
    <div className="jc-task-pane__compare" data-testid="compare-link">
      This task is one of a comparison of agents.{" "}
      <button type="button" onClick={() => openScreen({ kind: "compare", groupId: group })}>
        Open the comparison
      </button>
    </div>
  );
}
