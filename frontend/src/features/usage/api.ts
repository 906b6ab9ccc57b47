// UsageApi: usage limits (countdown, automatic retry) and the cost/tokens
// dashboard, over the Go UsageService (bridge/bound.ts); tests pass a fake.

import { call, onEvent } from "../../bridge/bound";
import * as UsageService from "../../bridge/wailsjs/go/services/UsageService";

/** A task's last usage limit (times in ms). state: waiting | retrying | retried | lifted | cancelled. */
export interface TaskLimit {
  taskId: string;
  resetAt: number;
  message: string;
  kind: string;
  state: string;
  detectedAt: number;
  retriedAt: number;
  error: string;
}

/** One project × agent × day of finished turns. */
export interface UsageRow {
  day: string;
  projectId: string;
  projectName: string;
  agent: string;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  turns: number;
}

export interface UsageApi {
  usage(days: number): Promise<UsageRow[]>;
  limit(taskId: string): Promise<TaskLimit | null>;
  cancelRetry(taskId: string): Promise<void>;
  autoRetry(): Promise<boolean>;
  setAutoRetry(on: boolean): Promise<void>;
  onLimit(cb: (l: TaskLimit) => void): () => void;
}

export function wailsUsageApi(): UsageApi {
  return {
    usage: (days) => call<UsageRow[]>(UsageService.Usage, "UsageService.Usage", days).then((r) => r ?? []),
    limit: (id) => call<TaskLimit | null>(UsageService.Limit, "UsageService.Limit", id),
    cancelRetry: (id) => call<void>(UsageService.CancelRetry, "UsageService.CancelRetry", id),
    autoRetry: () => call<boolean>(UsageService.AutoRetry, "UsageService.AutoRetry"),
    setAutoRetry: (on) => call<void>(UsageService.SetAutoRetry, "UsageService.SetAutoRetry", on),
    onLimit: (cb) => onEvent<TaskLimit>("limit:updated", cb),
  };
}
