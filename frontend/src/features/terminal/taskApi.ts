// TaskTerminalApi: a task's shells (TerminalService.OpenTaskTerminal,
// TaskTerminals, Snapshot) through the generated bindings; keystrokes,
// sizes and output go through the shared TerminalApi.

import { call } from "../../bridge/bound";
import * as TerminalService from "../../bridge/wailsjs/go/services/TerminalService";

export interface TaskTerminalInfo {
  id: string;
  title: string;
  cols: number;
  rows: number;
  startedAt: number;
  taskId: string;
  cwd?: string;
}

export interface TerminalSnapshot {
  id: string;
  /** base64 of the kept output. */
  data: string;
  /** the output offset the snapshot ends at. */
  end: number;
}

export interface TaskTerminalApi {
  list(taskId: string): Promise<TaskTerminalInfo[]>;
  open(taskId: string, cols: number, rows: number): Promise<TaskTerminalInfo>;
  snapshot(id: string): Promise<TerminalSnapshot>;
}

function svc<T>(method: keyof typeof TerminalService, ...args: unknown[]): Promise<T> {
  return call<T>(TerminalService[method], `TerminalService.${method}`, ...args);
}

export const wailsTaskTerminalApi: TaskTerminalApi = {
  list: (taskId) => svc<TaskTerminalInfo[]>("TaskTerminals", taskId),
  open: (taskId, cols, rows) => svc<TaskTerminalInfo>("OpenTaskTerminal", taskId, cols, rows),
  snapshot: (id) => svc<TerminalSnapshot>("Snapshot", id),
};
