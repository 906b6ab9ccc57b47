// fakeApi is an in-memory TaskApi for tests and the benchmark page: it
// serves a stored transcript and lets the caller emit the Wails events the
// orchestrator would.

import type { AgentEventEnvelope, Message, PendingRequest, PermissionDecision, QuestionAnswer, QueuedMessage } from "../../timeline/types";
import type { AnswerUpdate, BackendInfo, DecisionUpdate, PermissionAnswer, QueueUpdate, RequestsUpdate, TaskApi, TaskInfo } from "./api";
import type { TranscriptPage } from "../../timeline/store";

export interface FakeCall {
  method: string;
  args: unknown[];
}

export interface FakeApi {
  api: TaskApi;
  calls: FakeCall[];
  emitAgent(e: AgentEventEnvelope): void;
  emitTask(t: TaskInfo): void;
  emitQueue(u: QueueUpdate): void;
  emitRequests(u: RequestsUpdate): void;
  emitDecision(u: DecisionUpdate): void;
  emitAnswer(u: AnswerUpdate): void;
}

export interface FakeSeed {
  task?: TaskInfo;
  messages?: Message[];
  pending?: PendingRequest[];
  queue?: QueuedMessage[];
  backends?: BackendInfo[];
  decisions?: PermissionDecision[];
  answers?: QuestionAnswer[];
}

export function createFakeApi(seed: FakeSeed = {}): FakeApi {
  const calls: FakeCall[] = [];
  const subs = {
    agent: new Set<(e: AgentEventEnvelope) => void>(),
    task: new Set<(t: TaskInfo) => void>(),
    queue: new Set<(u: QueueUpdate) => void>(),
    requests: new Set<(u: RequestsUpdate) => void>(),
    decisions: new Set<(u: DecisionUpdate) => void>(),
    answers: new Set<(u: AnswerUpdate) => void>(),
  };
  const rec = (method: string, ...args: unknown[]) => {
    calls.push({ method, args });
    return Promise.resolve();
  };
  const sub = <T,>(set: Set<(v: T) => void>, cb: (v: T) => void) => {
    set.add(cb);
    return () => {
      set.delete(cb);
    };
  };
  const api: TaskApi = {
    getTask: (id) => Promise.resolve(seed.task ?? { id, status: "completed" }),
    listBackends: () => Promise.resolve(seed.backends ?? []),
    messagePage: (_id, before, limit, messageId) => Promise.resolve(pageOf(seed.messages ?? [], before, limit, messageId)),
    pendingRequests: () => Promise.resolve(seed.pending ?? []),
    queue: () => Promise.resolve(seed.queue ?? []),
    permissionDecisions: () => Promise.resolve(seed.decisions ?? []),
    questionAnswers: () => Promise.resolve(seed.answers ?? []),
    sendMessage: (id, text) => rec("sendMessage", id, text),
    stop: (id) => rec("stop", id),
    respondToPermission: (id, rid, a: PermissionAnswer) => rec("respondToPermission", id, rid, a),
    respondToQuestion: (id, rid, answers) => rec("respondToQuestion", id, rid, answers),
    setMode: (id, m) => rec("setMode", id, m),
    setModel: (id, m) => rec("setModel", id, m),
    editQueued: (qid, text) => rec("editQueued", qid, text),
    removeQueued: (qid) => rec("removeQueued", qid),
    markRead: (id) => rec("markRead", id),
    onAgentEvent: (cb) => sub(subs.agent, cb),
    onTaskUpdated: (cb) => sub(subs.task, cb),
    onQueueUpdated: (cb) => sub(subs.queue, cb),
    onRequestsUpdated: (cb) => sub(subs.requests, cb),
    onPermissionDecided: (cb) => sub(subs.decisions, cb),
    onQuestionAnswered: (cb) => sub(subs.answers, cb),
  };
  return {
    api,
    calls,
    emitAgent: (e) => subs.agent.forEach((f) => f(e)),
    emitTask: (t) => subs.task.forEach((f) => f(t)),
    emitQueue: (u) => subs.queue.forEach((f) => f(u)),
    emitRequests: (u) => subs.requests.forEach((f) => f(u)),
    emitDecision: (u) => subs.decisions.forEach((f) => f(u)),
    emitAnswer: (u) => subs.answers.forEach((f) => f(u)),
  };
}

/** pageOf is SessionService.MessagePage over a list (a message's position is its index). */
export function pageOf(msgs: readonly Message[], before: number, limit: number, messageId?: string): TranscriptPage {
  const end = before < 0 ? msgs.length : Math.min(before, msgs.length);
  let from = Math.max(0, end - limit);
  const at = messageId ? msgs.findIndex((m) => m.id === messageId) : -1;
  if (at >= 0 && at < from) from = at;
  return { messages: msgs.slice(from, end), cursor: end > from ? from : -1, hasOlder: end > from && from > 0 };
}
