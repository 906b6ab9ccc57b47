// TaskView is the screen of one task: its message stream, pending
// permission/question cards and the composer.

export interface TaskViewProps {
  taskId: string;
}

export function TaskView({ taskId }: TaskViewProps) {
  return (
    <div className="jc-task-view" data-task-id={taskId}>
      Loading…
    </div>
  );
}
