// DTOs that cross the Wails bridge, as the Go services (backend/services)
// return them. Times are int64 milliseconds since the Unix epoch.

export type InteractionMode = "ask" | "accept-edits" | "plan" | "bypass";

export const INTERACTION_MODES: { value: InteractionMode; label: string; hint: string }[] = [
  { value: "ask", label: "Ask", hint: "Every sensitive tool asks first" },
  { value: "accept-edits", label: "Accept edits", hint: "File edits run without asking" },
  { value: "plan", label: "Plan", hint: "Read-only planning" },
  { value: "bypass", label: "Bypass", hint: "Nothing asks" },
];

/** store-error: the agent's output cannot be stored (disk full, I/O error); the agent is paused until it can. */
export type TaskStatus = "created" | "running" | "waiting" | "completed" | "errored" | "interrupted" | "store-error";

export interface Capabilities {
  resume: boolean;
  fork: boolean;
  interrupt: boolean;
  setMode: boolean;
  setModel: boolean;
  compaction: boolean;
  questions: boolean;
  permissions: boolean;
  modes?: InteractionMode[];
}

export interface BackendInfo {
  name: string;
  displayName: string;
  capabilities: Capabilities;
  /** A short remark shown where the backend is picked. */
  notes?: string;
}


export interface Project {
  id: string;
  name: string;
  path: string;
  isGitRepo: boolean;
  defaultBackend: string;
  defaultModel: string;
  createdAt: number;
  updatedAt: number;
}

/** TaskProblem is why a task's agent could not work (services Problem). */
export interface TaskProblem {
  kind: "not-installed" | "not-signed-in" | "failed" | string;
  message: string;
  /** install | sign-in | settings */
  action: string;
  actionLabel: string;
}

export interface Task {
  id: string;
  projectId: string;
  name: string;
  prompt: string;
  status: TaskStatus | string;
  statusReason: string;
  /** problem explains an errored task in the user's words, with its fixing action. */
  problem?: TaskProblem | null;
  /** none | idle | busy | waiting, computed by the service ("" when absent). */
  indicator: string;
  backend: string;
  model: string;
  interactionMode: InteractionMode | string;
  sessionId: string;
  hasUnread: boolean;
  createdAt: number;
  updatedAt: number;
  startedAt?: number | null;
  endedAt?: number | null;
  /** summary is the one-line summary written when the task finished ("" = none). */
  summary?: string;
}

export interface CreateTaskInput {
  projectId: string;
  prompt: string;
  name: string;
  backend: string;
  model: string;
  interactionMode: InteractionMode;
}
