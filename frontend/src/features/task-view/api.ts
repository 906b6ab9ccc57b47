// api is the task view's typed door to the Go side: the orchestrator's
// SessionService (and TaskService/SettingsService for the task header),
// plus the Wails runtime events. Components take a TaskApi from context so
// tests and the benchmark page can supply a fake one. wailsApi goes through
// the generated bindings, wrapped in bridge/bound.ts.

import type {
  AgentEventEnvelope,
  InteractionMode,
  PendingRequest,
  PermissionDecision,
  QuestionAnswer,
  QueuedMessage,
} from "../../timeline/types";
import type { TaskProblem } from "../../bridge/types";
import type { TranscriptPage } from "../../timeline/store";
import { call, onEvent as on } from "../../bridge/bound";
import * as AgentService from "../../bridge/wailsjs/go/services/AgentService";
import * as SessionService from "../../bridge/wailsjs/go/services/SessionService";
import * as SettingsService from "../../bridge/wailsjs/go/services/SettingsService";
import * as TaskService from "../../bridge/wailsjs/go/services/TaskService";

export interface DecisionUpdate {
  taskId: string;
  seq: number;
  decision: PermissionDecision;
}

export interface AnswerUpdate {
  taskId: string;
  answer: QuestionAnswer;
}

export interface PermissionAnswer {
  behavior: "allow" | "deny";
  scope: "once" | "task" | "project";
  message?: string;
  interrupt?: boolean;
  /** What an "always" allow covers, as the user saw and edited it. */
  rule?: { matchKind: "exact" | "prefix" | "folder"; pattern: string };
}

/** TaskInfo is the part of the services Task DTO the task view reads. */
export interface TaskInfo {
  id: string;
  projectId?: string;
  name?: string;
  prompt?: string;
  status?: string;
  statusReason?: string;
  backend?: string;
  model?: string;
  interactionMode?: InteractionMode | string;
  sessionId?: string;
  hasUnread?: boolean;
  /** none | idle | busy | waiting, computed by the Go side. */
  indicator?: string;
  /** Why an errored task's agent could not work, with its fixing action. */
  problem?: TaskProblem | null;
}

export interface BackendInfo {
  name: string;
  displayName?: string;
  capabilities?: {
    interrupt?: boolean;
    setMode?: boolean;
    setModel?: boolean;
    modes?: string[] | null;
  };
}

export interface QueueUpdate {
  taskId: string;
  items: QueuedMessage[] | null;
}

export interface RequestsUpdate {
  taskId: string;
  requests: PendingRequest[] | null;
}

export interface TaskApi {
  getTask(taskId: string): Promise<TaskInfo | null>;
  listBackends(): Promise<BackendInfo[]>;
  /**
   * messagePage returns up to limit stored messages before cursor before
   * (the newest when before < 0), oldest first; with messageId the page
   * reaches back to that message (SessionService.MessagePage).
   */
  messagePage(taskId: string, before: number, limit: number, messageId?: string): Promise<TranscriptPage>;
  pendingRequests(taskId: string): Promise<PendingRequest[]>;
  permissionDecisions(taskId: string): Promise<PermissionDecision[]>;
  /** questionAnswers returns the user's stored answers to the task's questions. */
  questionAnswers(taskId: string): Promise<QuestionAnswer[]>;
  queue(taskId: string): Promise<QueuedMessage[]>;
  sendMessage(taskId: string, text: string): Promise<void>;
  stop(taskId: string): Promise<void>;
  respondToPermission(taskId: string, requestId: string, answer: PermissionAnswer): Promise<void>;
  respondToQuestion(taskId: string, requestId: string, answers: string[][]): Promise<void>;
  setMode(taskId: string, mode: InteractionMode): Promise<void>;
  setModel(taskId: string, model: string): Promise<void>;
  editQueued(id: string, text: string): Promise<void>;
  removeQueued(id: string): Promise<void>;
  markRead(taskId: string): Promise<void>;
  /** retry sends an errored task's prompt again (SessionService.Retry). */
  retry?(taskId: string): Promise<void>;
  /** installAgent installs the agent with npm; rejects with npm's error. */
  installAgent?(backend: string): Promise<void>;
  onAgentEvent(cb: (e: AgentEventEnvelope) => void): () => void;
  onTaskUpdated(cb: (t: TaskInfo) => void): () => void;
  onQueueUpdated(cb: (u: QueueUpdate) => void): () => void;
  onRequestsUpdated(cb: (u: RequestsUpdate) => void): () => void;
  onPermissionDecided(cb: (u: DecisionUpdate) => void): () => void;
  onQuestionAnswered(cb: (u: AnswerUpdate) => void): () => void;
}

/** wailsApi talks to the bound Go services. */
export const wailsApi: TaskApi = {
  getTask: (id) => call<TaskInfo | null>(TaskService.Get, "TaskService.Get", id),
  listBackends: () => call<BackendInfo[] | null>(SettingsService.ListBackends, "SettingsService.ListBackends").then((b) => b ?? []),
  messagePage: (id, before, limit, messageId) =>
    call<TranscriptPage>(SessionService.MessagePage, "SessionService.MessagePage", id, before, limit, messageId ?? "").then((p) => ({ ...p, messages: p.messages ?? [] })),
  pendingRequests: (id) => call<PendingRequest[] | null>(SessionService.PendingRequests, "SessionService.PendingRequests", id).then((r) => r ?? []),
  permissionDecisions: (id) => call<PermissionDecision[] | null>(SessionService.PermissionDecisions, "SessionService.PermissionDecisions", id).then((d) => d ?? []),
  questionAnswers: (id) => call<QuestionAnswer[] | null>(SessionService.QuestionAnswers, "SessionService.QuestionAnswers", id).then((a) => a ?? []),
  queue: (id) => call<QueuedMessage[] | null>(SessionService.Queue, "SessionService.Queue", id).then((q) => q ?? []),
  sendMessage: (id, text) => call<void>(SessionService.SendMessage, "SessionService.SendMessage", id, text),
  stop: (id) => call<void>(SessionService.Stop, "SessionService.Stop", id),
  respondToPermission: (id, rid, a) => call<void>(SessionService.RespondToPermission, "SessionService.RespondToPermission", id, rid, a),
  respondToQuestion: (id, rid, answers) => call<void>(SessionService.RespondToQuestion, "SessionService.RespondToQuestion", id, rid, answers),
  setMode: (id, mode) => call<void>(SessionService.SetMode, "SessionService.SetMode", id, mode),
  setModel: (id, model) => call<void>(SessionService.SetModel, "SessionService.SetModel", id, model),
  editQueued: (qid, text) => call<void>(SessionService.EditQueued, "SessionService.EditQueued", qid, text),
  removeQueued: (qid) => call<void>(SessionService.RemoveQueued, "SessionService.RemoveQueued", qid),
  markRead: (id) => call<void>(SessionService.MarkRead, "SessionService.MarkRead", id),
  retry: (id) => call<void>(SessionService.Retry, "SessionService.Retry", id),
  installAgent: async (backend) => {
    const r = await call<{ ok: boolean; error?: string; log?: string }>(AgentService.Install, "AgentService.Install", backend, "");
    if (!r.ok) throw new Error(r.error || "the install failed");
  },
  onAgentEvent: (cb) => on("agent:event", cb),
  onTaskUpdated: (cb) => on("task:updated", cb),
  onQueueUpdated: (cb) => on("queue:updated", cb),
  onRequestsUpdated: (cb) => on("requests:updated", cb),
  onPermissionDecided: (cb) => on("permission:decided", cb),
  onQuestionAnswered: (cb) => on("question:answered", cb),
};
