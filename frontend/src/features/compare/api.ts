// CompareApi: "Run on several agents" and the comparison view, over the Go
// CompareService (bridge/bound.ts); tests pass a fake.

import { call, onEvent } from "../../bridge/bound";
import * as CompareService from "../../bridge/wailsjs/go/services/CompareService";
import type { Task } from "../../bridge/types";
import type { TaskDiff } from "../diff/types";

export interface CompareAgent {
  backend: string;
  model: string;
}

export interface CreateCompareInput {
  projectId: string;
  prompt: string;
  name: string;
  interactionMode: string;
  agents: CompareAgent[];
}

/** The check command's run in one task's worktree. status: running | passed | failed | error. */
export interface CheckRun {
  taskId: string;
  command: string;
  status: string;
  exitCode: number;
  output: string;
  startedAt: number;
  endedAt: number;
}

export interface CompareMember {
  task: Task;
  durationMs: number;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  diff: TaskDiff;
  check?: CheckRun;
  worktreePath: string;
  branch: string;
}

export interface CompareGroup {
  id: string;
  projectId: string;
  prompt: string;
  createdAt: number;
  keptTaskId: string;
  keptAt: number;
  taskIds: string[];
}

export interface CompareView {
  group: CompareGroup;
  checkCommand: string;
  members: CompareMember[];
}

export interface KeepOutcome {
  kept: string;
  merge: string;
  into: string;
  removed: string[] | null;
  warning?: string;
}

export interface CompareApi {
  create(input: CreateCompareInput): Promise<CompareView>;
  get(groupId: string): Promise<CompareView>;
  groupOfTask(taskId: string): Promise<string>;
  checkCommand(projectId: string): Promise<string>;
  setCheckCommand(projectId: string, command: string): Promise<string>;
  runCheck(taskId: string): Promise<CheckRun>;
  keep(groupId: string, taskId: string): Promise<KeepOutcome>;
  /** onUpdated: "compare:updated" (a member or its check changed) and "task:updated". */
  onUpdated(cb: (groupId: string, taskId: string) => void): () => void;
}

export function wailsCompareApi(): CompareApi {
  return {
    create: (input) => call<CompareView>(CompareService.Create, "CompareService.Create", input),
    get: (id) => call<CompareView>(CompareService.Get, "CompareService.Get", id),
    groupOfTask: (id) => call<string>(CompareService.GroupOfTask, "CompareService.GroupOfTask", id),
    checkCommand: (id) => call<string>(CompareService.CheckCommand, "CompareService.CheckCommand", id),
    setCheckCommand: (id, cmd) => call<string>(CompareService.SetCheckCommand, "CompareService.SetCheckCommand", id, cmd),
    runCheck: (id) => call<CheckRun>(CompareService.RunCheck, "CompareService.RunCheck", id),
    keep: (g, t) => call<KeepOutcome>(CompareService.Keep, "CompareService.Keep", g, t),
    onUpdated: (cb) => {
      const a = onEvent<{ groupId: string; taskId: string }>("compare:updated", (p) => cb(p?.groupId ?? "", p?.taskId ?? ""));
      const b = onEvent<{ id: string }>("task:updated", (p) => cb("", p?.id ?? ""));
      return () => {
        a();
        b();
      };
    },
  };
}
