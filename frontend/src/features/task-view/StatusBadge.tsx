// StatusBadge shows a task's activity indicator (none / idle / busy / waiting)
// and an optional unread dot. Used by the task list and the task view header.

export type TaskIndicator = "none" | "idle" | "busy" | "waiting";

/** taskIndicator maps a task status (created | running | waiting | completed |
 * errored | interrupted) to the indicator the UI shows. */
export function taskIndicator(status: string | undefined | null): TaskIndicator {
  switch (status) {
    case "running":
      return "busy";
    case "waiting":
      return "waiting";
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
};

export interface StatusBadgeProps {
  /** Either a task status string or an indicator. */
  status?: string | null;
  indicator?: TaskIndicator;
  unread?: boolean;
  /** Show the label next to the dot. */
  showLabel?: boolean;
  /** label overrides the indicator's label (the task's status). */
  label?: string;
}

const STATUS_LABELS: Record<string, string> = {
  completed: "Completed",
  errored: "Failed",
  interrupted: "Interrupted",
};

/** statusLabel is what the header says for a task: its status when it has
 * ended (the same word as the task list), else the indicator's label. */
export function statusLabel(status: string | undefined | null, indicator: TaskIndicator): string {
  if (indicator === "idle" && status && STATUS_LABELS[status]) return STATUS_LABELS[status];
  return LABELS[indicator];
}

export function StatusBadge({ status, indicator, unread, showLabel, label }: StatusBadgeProps) {
  const ind = indicator ?? taskIndicator(status);
  const text = label ?? LABELS[ind];
  return (
    <span className={`jc-status jc-status--${ind}${status === "errored" ? " jc-status--errored" : ""}`} data-status={ind} title={text}>
      <span className="jc-status__dot" aria-hidden="true" />
      {showLabel ? <span className="jc-status__label">{text}</span> : null}
      {unread ? <span className="jc-status__unread" aria-label="unread" /> : null}
    </span>
  );
}
