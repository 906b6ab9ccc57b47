// StatusBadge shows a task's activity indicator (none / idle / busy / waiting)
// and an optional unread dot. Used by the task list and the task view header.

import { statusTooltip, taskStatus } from "../../lib/status";

export type TaskIndicator = "none" | "idle" | "busy" | "waiting" | "blocked";

/** taskIndicator maps a task status (created | running | waiting | completed |
 * errored | interrupted | store-error) to the indicator the UI shows. */
export function taskIndicator(status: string | undefined | null): TaskIndicator {
  switch (status) {
    case "running":
      return "busy";
    case "waiting":
      return "waiting";
    case "store-error":
      return "blocked";
    case "store-error":
      return "blocked";
    case "completed":
    case "errored":
    case "interrupted":
      return "idle";
    default:
      return "none";
  }
}

export interface StatusBadgeProps {
  /** Either a task status string or an indicator. */
  status?: string | null;
  /** The task's status reason ("Stopped by user", an error). */
  reason?: string | null;
  /** Requests waiting on the user right now. */
  pending?: number;
  indicator?: TaskIndicator;
  unread?: boolean;
  /** Show the label next to the dot. */
  showLabel?: boolean;
}

const FROM_INDICATOR: Record<TaskIndicator, string> = { none: "created", idle: "completed", busy: "running", waiting: "waiting", blocked: "store-error" };

/**
 * StatusBadge says a task's state in the app's one vocabulary (lib/status):
 * the same label on the dot's tooltip, in the header and in notifications.
 * data-status keeps the coarse indicator; data-state is the precise key.
 */
export function StatusBadge({ status, reason, pending, indicator, unread, showLabel }: StatusBadgeProps) {
  const ind = indicator ?? taskIndicator(status);
  // The stored status says more than the indicator (stopped vs done); a
  // live indicator (busy, waiting) wins over a stale status.
  const live = indicator === "busy" || indicator === "waiting";
  const st = taskStatus(live || !status ? FROM_INDICATOR[ind] : status, reason, pending ?? 0);
  return (
    <span className={`jc-status jc-status--${ind}`} data-status={ind} data-state={st.key} data-tone={st.tone} title={statusTooltip(st)}>
      <span className="jc-status__dot" aria-hidden="true" />
      {showLabel ? <span className="jc-status__label">{st.label}</span> : null}
      {unread ? <span className="jc-status__unread" aria-label="unread" /> : null}
    </span>
  );
}
