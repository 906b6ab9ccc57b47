// StatusBadge shows a task's activity indicator (none / idle / busy / waiting)
// and an optional unread dot. Used by the task list and the task view header.

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
    case "completed":
    case "errored":
    case "interrupted":
      return "idle";
    default:
      return "none";
  }
}

const LABELS: Record<TaskIndicator, string> = {
  none: "Not started",
  idle: "Idle",
  busy: "Working",
  waiting: "Waiting for you",
  blocked: "Cannot save its output",
};

export interface StatusBadgeProps {
  /** Either a task status string or an indicator. */
  status?: string | null;
  indicator?: TaskIndicator;
  unread?: boolean;
  /** Show the label next to the dot. */
  showLabel?: boolean;
}

export function StatusBadge({ status, indicator, unread, showLabel }: StatusBadgeProps) {
  const ind = indicator ?? taskIndicator(status);
  return (
    <span className={`jc-status jc-status--${ind}`} data-status={ind} title={LABELS[ind]}>
      <span className="jc-status__dot" aria-hidden="true" />
      {showLabel ? <span className="jc-status__label">{LABELS[ind]}</span> : null}
      {unread ? <span className="jc-status__unread" aria-label="unread" /> : null}
    </span>
  );
}
