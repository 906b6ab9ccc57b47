// LimitBanner: above a task, the usage limit its agent reported — a live
// countdown to the reset and, when the automatic retry is on, the retry of
// the last message at that moment (done by Go; this shows it).

import { useEffect, useMemo, useState } from "react";
import { cx } from "../../lib/cx";
import { Button } from "../../lib/ui";
import { wailsUsageApi, type TaskLimit, type UsageApi } from "./api";
import { limitView, newerLimit } from "./reducers";
import "./usage.css";

export function LimitBanner({ taskId, api: apiProp, now: nowProp }: { taskId: string; api?: UsageApi; now?: () => number }) {
  const api = useMemo(() => apiProp ?? wailsUsageApi(), [apiProp]);
  const clock = nowProp ?? Date.now;
  const [limit, setLimit] = useState<TaskLimit | null>(null);
  const [auto, setAuto] = useState(true);
  const [now, setNow] = useState(clock());
  useEffect(() => {
    let live = true;
    setLimit(null); // another task's limit is not this one's
    api.limit(taskId).then((l) => live && setLimit((prev) => newerLimit(prev, l)), () => {});
    api.autoRetry().then((a) => live && setAuto(a), () => {});
    const off = api.onLimit((l) => {
      if (l.taskId === taskId) setLimit((prev) => newerLimit(prev, l));
    });
    return () => {
      live = false;
      off();
    };
  }, [api, taskId]);
  const waiting = limit?.state === "waiting";
  useEffect(() => {
    if (!limit) return;
    setNow(clock());
    const t = setInterval(() => setNow(clock()), waiting ? 1000 : 15000);
    return () => clearInterval(t);
  }, [limit, waiting, clock]);
  const v = limitView(limit, now, auto);
  if (!v.show || !limit) return null;
  return (
    <div className={cx("jc-limit", `jc-limit--${v.tone}`)} role="status" data-testid="limit-banner" data-state={limit.state}>
      <div className="jc-limit__text">
        <strong>{v.title}</strong>
        <span>{v.detail}</span>
        {limit.message ? <span className="jc-limit__msg">{limit.message}</span> : null}
      </div>
      {v.left ? (
        <div className="jc-limit__count" data-testid="limit-countdown" aria-label="Time until the limit resets">
          {v.left}
        </div>
      ) : null}
      {v.canCancel ? (
        <Button size="sm" variant="ghost" onClick={() => void api.cancelRetry(taskId)}>
          Don't retry
        </Button>
      ) : null}
    </div>
  );
}
