// The task view's normalized state and the pure reducer that applies agent
// events to it. Messages live in a map keyed by id and are replaced in place
// when the agent re-sends them; tool uses and tool results are indexed by
// toolId so a tool card finds its result in O(1); sub-agent messages are
// indexed under the tool call that spawned them (parentToolUseId).
//
// Every message entry carries a revision number. Anything that changes how a
// message renders (the message itself, a matching tool result, a live tool
// state, a sub-agent child) bumps the revision of that message and of the
// messages that contain it, so memoized rows re-render exactly when needed.

import { isFinalToolState } from "./types";
import type {
  AgentEvent,
  AgentEventEnvelope,
  Delta,
  InteractionMode,
  Message,
  ModelUsage,
  Part,
  PendingRequest,
  PermissionDecision,
  QuestionAnswer,
  Request,
  Result,
  ToolState,
} from "./types";

export interface MessageEntry {
  msg: Message;
  rev: number;
}

export interface ToolRef {
  part: Part;
  messageId: string;
}

export interface ToolLive {
  state: ToolState;
  result?: string;
  error?: string;
}

/** A session-level happening shown inline in the stream (not a message). */
export interface Notice {
  key: string;
  kind: "error" | "complete";
  /** Position: shown after this many messages of `order`. */
  after: number;
  text: string;
  fatal?: boolean;
  result?: Result;
}

/** RetryInfo is a rate limit the agent is waiting out. */
export interface RetryInfo {
  text: string;
  retryAfterMs?: number;
  attempt?: number;
  maxRetries?: number;
}

export type PendingKind = "permission" | "question";

export interface PendingCard {
  kind: PendingKind;
  request: Request;
}

export interface TimelineState {
  messages: Map<string, MessageEntry>;
  /** Message ids in arrival order. */
  order: string[];
  toolUses: Map<string, ToolRef>;
  toolResults: Map<string, ToolRef>;
  toolLive: Map<string, ToolLive>;
  /** When the store first saw a tool use / tool result arrive live (epoch ms). */
  toolSeen: Map<string, number>;
  resultSeen: Map<string, number>;
  /** parentToolUseId -> ids of the sub-agent messages it spawned, in order. */
  children: Map<string, string[]>;
  notices: Notice[];
  pending: Map<string, PendingCard>;
  /** The complete event's result for a result message that arrived after it. */
  completeOf: Map<string, Result>;
  /** Permission answers by toolId (the latest one). */
  decisions: Map<string, PermissionDecision>;
  /** The user's answers to questions by toolId (the latest one). */
  answers: Map<string, QuestionAnswer>;
  mode?: InteractionMode;
  /** Set while the agent waits out a rate limit; cleared when it moves on. */
  retry?: RetryInfo;
  sessionId?: string;
  title?: string;
  /** Latest per-model usage seen (result message or complete event). */
  modelUsage?: Record<string, ModelUsage>;
  lastSeq: number;
  /**
   * The seq of the last message or message-removed event applied, by
   * message id. The transport may deliver a task's events out of order
   * (Wails dev mode writes each one from its own goroutine), so an event
   * older than what was already applied for its message is stale: an old
   * version must not replace a newer one, nor bring back a message whose
   * removal overtook it. Ids stay after a removal (a tombstone). The
   * orchestrator's numbering lasts as long as the app, as does this state.
   */
  msgSeq: Map<string, number>;
  /** Ids of messages whose revision changed since the store last published. */
  dirty: Set<string>;
  /** Bumped whenever the set or order of rows may have changed. */
  structureRev: number;
  revCounter: number;
}

export function emptyState(): TimelineState {
  return {
    messages: new Map(),
    order: [],
    toolUses: new Map(),
    toolResults: new Map(),
    toolLive: new Map(),
    toolSeen: new Map(),
    resultSeen: new Map(),
    children: new Map(),
    notices: [],
    pending: new Map(),
    decisions: new Map(),
    answers: new Map(),
    completeOf: new Map(),
    lastSeq: 0,
    msgSeq: new Map(),
    dirty: new Set(),
    structureRev: 0,
    revCounter: 0,
  };
}

function nextRev(s: TimelineState): number {
  s.revCounter += 1;
  return s.revCounter;
}

/** bump marks a message (and every message containing it) as changed. */
function bump(s: TimelineState, messageId: string, depth = 0): void {
  const e = s.messages.get(messageId);
  if (!e || depth > 32) return;
  e.rev = nextRev(s);
  s.dirty.add(messageId);
  const parentTool = e.msg.parentToolUseId;
  if (parentTool) {
    const use = s.toolUses.get(parentTool);
    if (use && use.messageId !== messageId) bump(s, use.messageId, depth + 1);
    else s.structureRev++;
  }
}

function bumpTool(s: TimelineState, toolId: string): void {
  const use = s.toolUses.get(toolId);
  if (use) bump(s, use.messageId);
}

function unindex(s: TimelineState, e: MessageEntry): void {
  const id = e.msg.id;
  for (const p of e.msg.parts ?? []) {
    if (!p.toolId) continue;
    if (p.type === "tool-use" && s.toolUses.get(p.toolId)?.messageId === id) s.toolUses.delete(p.toolId);
    if (p.type === "tool-result" && s.toolResults.get(p.toolId)?.messageId === id) s.toolResults.delete(p.toolId);
  }
  const parent = e.msg.parentToolUseId;
  if (parent) {
    const list = s.children.get(parent);
    if (list) {
      const i = list.indexOf(id);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) s.children.delete(parent);
    }
  }
}

/**
 * absorbCompleteNotice: when the turn's result message arrives after its
 * complete event, the notice made for the event goes away (one summary per
 * turn) and what only the event knew (interrupted, end reason) is kept for
 * the result row.
 */
function absorbCompleteNotice(s: TimelineState, resultId: string): void {
  // The notice belongs to this turn when it was placed after the turn's
  // user message; rows may have landed between it and the result (events
  // reach the view out of order in dev mode, sub-agent rows interleave).
  const start = turnStart(s, s.order.length - 1);
  for (let i = s.notices.length - 1; i >= 0; i--) {
    const n = s.notices[i];
    if (n.after < start) break;
    if (n.kind === "complete") {
      s.notices.splice(i, 1);
      if (n.result) s.completeOf.set(resultId, n.result);
      s.structureRev++;
      return;
    }
  }
}

/**
 * turnStart is the index in s.order just after the last top-level user
 * message before index `before` (0 when there is none): where a turn's rows begin.
 */
function turnStart(s: TimelineState, before: number): number {
  for (let i = Math.min(before, s.order.length - 1); i >= 0; i--) {
    const e = s.messages.get(s.order[i]);
    if (e && startsTurn(e.msg)) return i + 1;
  }
  return 0;
}

/**
 * startsTurn: a top-level user message that is not only tool results (an
 * agent's tool results come back as "user" messages inside its turn).
 */
function startsTurn(m: Message): boolean {
  if (m.parentToolUseId || m.role !== "user") return false;
  const parts = m.parts ?? [];
  return parts.length === 0 || !parts.every((p) => p.type === "tool-result");
}

/**
 * appendDelta returns msg with d's text appended to the part it names, or
 * undefined when that part is missing or of another kind. It is pure: the
 * message and its other parts are shared, only the grown part is new, so a
 * memoized part view re-renders only that part.
 */
export function appendDelta(msg: Message, d: Delta): Message | undefined {
  const parts = msg.parts ?? [];
  const i = d.part ?? 0;
  const p = parts[i];
  if (!p) return undefined;
  const field = d.field ?? "text";
  let grown: Part;
  if ((field === "text" && p.type === "text") || (field === "reasoning" && p.type === "reasoning")) {
    grown = { ...p, text: (p.text ?? "") + d.text };
  } else if (field === "output" && p.type === "tool-result") {
    grown = { ...p, content: textOf(p.content) + d.text };
  } else {
    return undefined;
  }
  const next = parts.slice();
  next[i] = grown;
  return { ...msg, parts: next };
}

/** applyDelta appends a delta to a message of the state (a delta for an unknown message is dropped). */
function applyDelta(s: TimelineState, id: string, d: Delta): void {
  const e = s.messages.get(id);
  if (!e) return;
  const msg = appendDelta(e.msg, d);
  if (!msg) return;
  e.msg = msg;
  const p = (msg.parts ?? [])[d.part ?? 0];
  if (p.type === "tool-result" && p.toolId) {
    s.toolResults.set(p.toolId, { part: p, messageId: id });
    bumpTool(s, p.toolId);
  }
  bump(s, id);
}

/** upsertMessage inserts a message or replaces the one with the same id in place. */
export function upsertMessage(s: TimelineState, msg: Message, now?: number): void {
  const prev = s.messages.get(msg.id);
  const toolsToBump = new Set<string>();
  if (prev) {
    unindex(s, prev);
    prev.msg = msg;
  } else {
    s.messages.set(msg.id, { msg, rev: 0 });
    s.order.push(msg.id);
    s.structureRev++;
  }
  const prevParent = prev?.msg.parentToolUseId;
  for (const p of msg.parts ?? []) {
    if (!p.toolId) continue;
    if (p.type === "tool-use") {
      s.toolUses.set(p.toolId, { part: p, messageId: msg.id });
      if (now !== undefined && !s.toolSeen.has(p.toolId)) s.toolSeen.set(p.toolId, now);
      // Children that arrived before their parent now have a home.
      if (s.children.has(p.toolId)) s.structureRev++;
    } else if (p.type === "tool-result") {
      s.toolResults.set(p.toolId, { part: p, messageId: msg.id });
      if (now !== undefined && !s.resultSeen.has(p.toolId)) s.resultSeen.set(p.toolId, now);
      toolsToBump.add(p.toolId);
    }
  }
  if (msg.parentToolUseId) {
    const list = s.children.get(msg.parentToolUseId) ?? [];
    if (!list.includes(msg.id)) list.push(msg.id);
    s.children.set(msg.parentToolUseId, list);
  }
  if (prevParent !== msg.parentToolUseId) s.structureRev++;
  if (msg.role === "result" && msg.modelUsage && Object.keys(msg.modelUsage).length > 0) {
    s.modelUsage = msg.modelUsage;
  }
  if (msg.role === "result" && !prev) absorbCompleteNotice(s, msg.id);
  bump(s, msg.id);
  for (const t of toolsToBump) bumpTool(s, t);
  // A message made only of tool results renders inside the cards it answers:
  // its visibility may have changed.
  if (prev && (msg.parts ?? []).some((p) => p.type === "tool-result")) s.structureRev++;
}

export function removeMessage(s: TimelineState, id: string): void {
  const e = s.messages.get(id);
  if (!e) return;
  const toolIds = (e.msg.parts ?? []).filter((p) => p.type === "tool-result" && p.toolId).map((p) => p.toolId as string);
  const parent = e.msg.parentToolUseId;
  unindex(s, e);
  s.messages.delete(id);
  const i = s.order.indexOf(id);
  if (i >= 0) {
    s.order.splice(i, 1);
    for (const n of s.notices) if (n.after > i) n.after--;
  }
  s.structureRev++;
  for (const t of toolIds) bumpTool(s, t);
  if (parent) bumpTool(s, parent);
}

function requestKind(ev: AgentEvent): PendingKind {
  return ev.type === "question" ? "question" : "permission";
}

/**
 * applyEvent applies one agent event to the state, in place. now is when a
 * live event arrived (undefined when replaying stored data): tool timings
 * then use it rather than the agent's timestamps. seq is the orchestrator's
 * number of the event (0 when unknown); a message event older than one
 * already applied for the same message is skipped (see msgSeq).
 */
export function applyEvent(s: TimelineState, ev: AgentEvent, seq = 0, now?: number): void {
  if (seq > 0 && (ev.type === "message" || ev.type === "message-removed" || ev.type === "delta")) {
    const id = ev.type === "message" ? ev.message?.id : ev.messageId;
    if (id) {
      const last = s.msgSeq.get(id);
      if (last !== undefined && seq < last) return; // stale: overtaken by a later event of this message
      s.msgSeq.set(id, seq);
    }
  }
  switch (ev.type) {
    case "message":
      if (ev.message) {
        if (s.retry && ev.message.role !== "system") {
          s.retry = undefined;
          s.structureRev++;
        }
        upsertMessage(s, ev.message, now);
      }
      return;
    case "message-removed":
      if (ev.messageId) removeMessage(s, ev.messageId);
      return;
    case "delta":
      if (ev.messageId && ev.delta) applyDelta(s, ev.messageId, ev.delta);
      return;
    case "permission-request":
    case "question":
      if (ev.request) s.pending.set(ev.request.requestId, { kind: requestKind(ev), request: ev.request });
      return;
    case "session-id":
      s.sessionId = ev.sessionId;
      return;
    case "session-updated":
      if (ev.title) s.title = ev.title;
      return;
    case "mode-change":
      if (ev.mode) s.mode = ev.mode;
      return;
    case "tool-state-update": {
      if (!ev.toolId || !ev.state) return;
      if (now !== undefined && !s.toolSeen.has(ev.toolId)) s.toolSeen.set(ev.toolId, now);
      if (now !== undefined && isFinalToolState(ev.state) && !s.resultSeen.has(ev.toolId)) s.resultSeen.set(ev.toolId, now);
      s.toolLive.set(ev.toolId, {
        state: ev.state,
        result: typeof ev.result === "string" ? ev.result : undefined,
        error: ev.error,
      });
      bumpTool(s, ev.toolId);
      return;
    }
    case "complete": {
      s.retry = undefined;
      const r = typeof ev.result === "object" && ev.result ? ev.result : undefined;
      if (r?.modelUsage && Object.keys(r.modelUsage).length > 0) s.modelUsage = r.modelUsage;
      // Running tools of a finished turn are not running any more.
      for (const [id, live] of s.toolLive) {
        if (live.state === "running" || live.state === "pending") {
          if (!s.toolResults.has(id)) {
            s.toolLive.set(id, {
              ...live,
              state: r?.interrupted ? "interrupted" : "cancelled",
              error: live.error ?? (r?.interrupted ? "the turn was interrupted" : "the turn ended before the tool finished"),
            });
            bumpTool(s, id);
          }
        }
      }
      // The result message already summarizes the turn when the agent sent one.
      if (turnHasResult(s)) return;
      s.notices.push({ key: `complete:${seq}:${s.notices.length}`, kind: "complete", after: s.order.length, text: r?.text ?? "", result: r });
      s.structureRev++;
      return;
    }
    case "error":
      s.retry = undefined;
      // The agent usually also sent the error as a message; don't say it twice.
      if (lastMessageSays(s, ev.error ?? "")) return;
      s.notices.push({ key: `error:${seq}:${s.notices.length}`, kind: "error", after: s.order.length, text: ev.error ?? "error", fatal: ev.fatal });
      s.structureRev++;
      return;
    case "rate-limit":
      // Transient: shown by the working indicator until the agent moves on.
      // (Backends also persist a system-status line for each retry.)
      s.retry = { text: ev.error ?? "rate limited", retryAfterMs: ev.retryAfterMs, attempt: ev.attempt, maxRetries: ev.maxRetries };
      s.structureRev++;
      return;
    default: {
      const _exhaustive: never = ev.type;
      void _exhaustive;
    }
  }
}

function lastMessageSays(s: TimelineState, text: string): boolean {
  for (let i = s.order.length - 1; i >= 0; i--) {
    const m = s.messages.get(s.order[i])?.msg;
    if (!m || m.parentToolUseId) continue;
    if (!m.isError) return false;
    const said = (m.parts ?? []).map((p) => p.text ?? "").join("\n") + (m.result ?? "");
    return text !== "" && said.includes(text);
  }
  return false;
}

function turnHasResult(s: TimelineState): boolean {
  // True when the current turn (rows since its user message) already has
  // its result message, wherever it sits among the turn's rows.
  for (let i = s.order.length - 1; i >= 0; i--) {
    const e = s.messages.get(s.order[i]);
    if (!e || e.msg.parentToolUseId) continue;
    if (startsTurn(e.msg)) return false;
    if (e.msg.role === "result") return true;
  }
  return false;
}

/** applyEnvelopes applies a batch of "agent:event" payloads for one task, skipping re-deliveries. */
export function applyEnvelopes(s: TimelineState, envs: readonly AgentEventEnvelope[], now?: number): void {
  for (const env of envs) {
    // The orchestrator numbers a task's events; an exact repeat of the last
    // one (a re-delivery) is dropped. Numbering restarts with each run, so
    // a smaller number is a new run, not a duplicate.
    if (env.seq > 0 && env.seq === s.lastSeq && env.event.type !== "message") continue;
    applyEvent(s, env.event, env.seq, now);
    s.lastSeq = env.seq;
  }
}

/**
 * loadMessages adds a stored transcript. Messages new to the state take a
 * fast path (no per-message change tracking: everything is new); the rest
 * are upserted.
 */
export function loadMessages(s: TimelineState, msgs: readonly Message[]): void {
  for (const m of msgs) {
    if (s.messages.has(m.id)) {
      upsertMessage(s, m);
      continue;
    }
    indexNew(s, m, true);
    s.order.push(m.id);
    if (m.parentToolUseId) {
      const list = s.children.get(m.parentToolUseId);
      if (list) list.push(m.id);
      else s.children.set(m.parentToolUseId, [m.id]);
    }
    if (m.role === "result" && m.modelUsage && Object.keys(m.modelUsage).length > 0) s.modelUsage = m.modelUsage;
  }
  s.structureRev++;
}

/**
 * indexNew adds a message new to the state to the messages and tool maps;
 * without overwrite, a tool's use or result already known (it came later,
 * live) stays.
 */
function indexNew(s: TimelineState, m: Message, overwrite: boolean): void {
  s.messages.set(m.id, { msg: m, rev: ++s.revCounter });
  const parts = m.parts;
  if (!parts) return;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (!p.toolId) continue;
    const map = p.type === "tool-use" ? s.toolUses : p.type === "tool-result" ? s.toolResults : null;
    if (map && (overwrite || !map.has(p.toolId))) map.set(p.toolId, { part: p, messageId: m.id });
  }
}

/**
 * prependMessages adds an older page of the stored transcript (oldest
 * first) before what the state holds. The page is where its messages
 * belong: one the state already holds (a live event re-sent an old
 * message, which went to the end) moves to its place in the page and
 * keeps the newer of the two versions; the rest keep their order after
 * the page. Notices stay after the messages they followed.
 */
export function prependMessages(s: TimelineState, msgs: readonly Message[]): void {
  if (msgs.length === 0) return;
  const page = new Set<string>();
  const kids = new Map<string, string[]>();
  for (const m of msgs) {
    if (page.has(m.id)) continue;
    if (s.msgSeq.has(m.id) && !s.messages.has(m.id)) continue; // removed live since the page was read
    page.add(m.id);
    if (s.messages.has(m.id)) {
      const seen = s.msgSeq.get(m.id);
      if (seen === undefined) upsertMessage(s, m); // a live version (seq known) is newer than the stored row
      continue;
    }
    indexNew(s, m, false);
    if (m.parentToolUseId) {
      const list = kids.get(m.parentToolUseId);
      if (list) list.push(m.id);
      else kids.set(m.parentToolUseId, [m.id]);
    }
    if (!s.modelUsage && m.role === "result" && m.modelUsage && Object.keys(m.modelUsage).length > 0) s.modelUsage = m.modelUsage;
  }
  for (const [parent, ids] of kids) s.children.set(parent, [...ids, ...(s.children.get(parent) ?? []).filter((id) => !page.has(id))]);
  const rest = s.order.filter((id) => !page.has(id));
  const shift = page.size - (s.order.length - rest.length); // messages new to the state
  s.order = [...page, ...rest];
  for (const n of s.notices) n.after += shift;
  s.structureRev++;
}

/** setPending replaces the pending cards with the orchestrator's list. */
export function setPending(s: TimelineState, cards: readonly PendingCard[]): void {
  s.pending = new Map(cards.map((c) => [c.request.requestId, c]));
}

// ---- tool view: what a tool card shows ----

export interface ToolView {
  use: Part;
  result?: Part;
  state: ToolState;
  /** Start and end as epoch ms when known. */
  startedAt?: number;
  endedAt?: number;
  liveResult?: string;
  error?: string;
}

function ts(s: TimelineState, messageId: string): number | undefined {
  const t = s.messages.get(messageId)?.msg.timestamp;
  if (!t) return undefined;
  const n = Date.parse(t);
  return Number.isNaN(n) ? undefined : n;
}

/** toolView joins a tool use with its result and live state. */
export function toolView(s: TimelineState, use: Part, messageId: string): ToolView {
  const id = use.toolId ?? "";
  const res = s.toolResults.get(id);
  const live = s.toolLive.get(id);
  // A worktree setup streams its output as a result in the use's own
  // message: the use's state says whether it still runs, the message's
  // durationMs how long it took.
  const inline = res !== undefined && res.messageId === messageId;
  const open = inline && (use.state === "running" || use.state === "pending");
  let state: ToolState;
  // A call that did not run to its end (denied, cancelled, interrupted)
  // says so even when the agent also sent an error result for it.
  const ended = live && isEndedEarly(live.state) ? live.state : isEndedEarly(use.state) ? use.state : undefined;
  if (ended) state = ended;
  else if (open) state = use.state!;
  else if (res) state = res.part.isError ? "error" : "completed";
  else if (live) state = live.state;
  else state = use.state ?? "pending";
  // Live arrival times beat the agent's timestamps (a replayed or resumed
  // session carries old ones); a span that is negative or over a day is
  // not a real duration and is dropped.
  const startedAt = s.toolSeen.get(id) ?? ts(s, messageId);
  let endedAt = inline ? inlineEnd(s, messageId, state) : (s.resultSeen.get(id) ?? (res ? ts(s, res.messageId) : undefined));
  if (endedAt === undefined && !inline && isFinalToolState(state) && startedAt !== undefined) endedAt = startedAt;
  const span = startedAt !== undefined && endedAt !== undefined ? endedAt - startedAt : 0;
  const sane = span >= 0 && span < 86_400_000;
  return {
    use,
    result: res?.part,
    state,
    startedAt: sane ? startedAt : undefined,
    endedAt: sane ? endedAt : undefined,
    liveResult: live?.result,
    error: live?.error ?? storedToolError(s, messageId, id),
  };
}

/** inlineEnd is when a tool whose result shares its message ended: its start plus the message's durationMs (unknown without it). */
function inlineEnd(s: TimelineState, messageId: string, state: ToolState): number | undefined {
  const d = s.messages.get(messageId)?.msg.durationMs;
  const start = ts(s, messageId);
  return isFinalToolState(state) && d !== undefined && start !== undefined ? start + d : undefined;
}

function isEndedEarly(st: ToolState | undefined): st is "denied" | "cancelled" | "interrupted" {
  return st === "denied" || st === "cancelled" || st === "interrupted";
}

/** storedToolError is why a stored tool call was closed (metadata.toolErrors). */
function storedToolError(s: TimelineState, messageId: string, toolId: string): string | undefined {
  const errs = s.messages.get(messageId)?.msg.metadata?.toolErrors;
  if (errs && typeof errs === "object" && !Array.isArray(errs)) {
    const why = (errs as Record<string, unknown>)[toolId];
    if (typeof why === "string") return why;
  }
  return undefined;
}

/** textOf returns a tool result's content as text (a string, or text parts joined). */
export function textOf(content: Part["content"]): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const out: string[] = [];
    for (const c of content) {
      if (typeof c === "string") out.push(c);
      else if (c && typeof c === "object" && !Array.isArray(c) && typeof c.text === "string") out.push(c.text);
    }
    return out.join("\n");
  }
  return JSON.stringify(content);
}

/** pendingCards turns the orchestrator's pending requests into cards. */
export function pendingCards(list: readonly PendingRequest[] | null | undefined): PendingCard[] {
  const out: PendingCard[] = [];
  for (const p of list ?? []) {
    const req: Request | undefined = p.request ?? (p.requestId ? ({ requestId: p.requestId } as Request) : undefined);
    if (!req) continue;
    if (!req.requestId && p.requestId) req.requestId = p.requestId;
    const k = p.kind ?? "";
    const kind: PendingKind = k === "question" || (!k && (req.question || req.questions?.length)) ? "question" : "permission";
    out.push({ kind, request: req });
  }
  return out;
}

/** addAnswers records the user's answers to questions on the tools that asked them. */
export function addAnswers(s: TimelineState, as: readonly QuestionAnswer[]): void {
  for (const a of as) {
    s.pending.delete(a.requestId);
    if (!a.toolId) continue;
    s.answers.set(a.toolId, a);
    bumpTool(s, a.toolId);
  }
}

/** addDecisions records permission answers on the tools they answered. */
export function addDecisions(s: TimelineState, ds: readonly PermissionDecision[]): void {
  for (const d of ds) {
    if (!d.toolId) continue;
    s.decisions.set(d.toolId, d);
    s.pending.delete(d.requestId);
    bumpTool(s, d.toolId);
  }
}
