// Types of the agent contract exactly as the Go side marshals them
// (backend/agent/types.go and event.go). The task view works only from
// these: a normalized Message made of Parts, and the Events of a session.
//
// These stay plain so fixtures and tests can be written as JSON;
// models.test.ts checks (at `tsc --noEmit`) that they match the classes
// Wails generates from the Go structs (bridge/wailsjs/go/models.ts).

import type { agent } from "../bridge/wailsjs/go/models";

export type Role = "user" | "assistant" | "system" | "result";

export type PartType =
  | "text"
  | "reasoning"
  | "file"
  | "tool-use"
  | "tool-result"
  | "compact"
  | "system-status";

export type ToolKind =
  | "read"
  | "edit"
  | "execute"
  | "search"
  | "fetch"
  | "todo"
  | "ask-user"
  | "sub-agent"
  | "skill"
  | "think"
  | "other";

/** A tool call's state: the generated enum's values (backend/agent/types.go). */
export type ToolState = `${agent.ToolState}`;

/** The states a tool call ends in. */
export const FINAL_TOOL_STATES: readonly ToolState[] = ["completed", "error", "denied", "cancelled", "interrupted"];

export function isFinalToolState(s: ToolState | undefined): boolean {
  return s !== undefined && FINAL_TOOL_STATES.includes(s);
}

export type InteractionMode = "ask" | "accept-edits" | "plan" | "bypass";

export const ALL_MODES: readonly InteractionMode[] = ["ask", "accept-edits", "plan", "bypass"];

/** JSON value as it arrives from Go's json.RawMessage fields. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface TodoItem {
  id?: string;
  content: string;
  status: string; // pending | in_progress | completed | cancelled
  activeForm?: string;
  priority?: string;
}

export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export interface StructuredResult {
  kind: string; // todo | write | skill (a plain string in Go)
  oldTodos?: TodoItem[];
  newTodos?: TodoItem[];
  filePath?: string;
  content?: string;
  originalFile?: string | null;
  structuredPatch?: PatchHunk[];
  operation?: string;
  success?: boolean;
  commandName?: string;
}

/** Part is a flattened tagged union; which fields are set depends on type. */
export interface Part {
  type: PartType;
  text?: string;
  path?: string;
  /** tool-result: a string or a list of parts; file: a string. */
  content?: Json;
  mime?: string;
  toolId?: string;
  toolName?: string;
  input?: Json;
  kind?: ToolKind;
  state?: ToolState;
  isError?: boolean;
  title?: string;
  attachments?: Json[];
  structuredResult?: StructuredResult;
  trigger?: string;
  preTokens?: number;
  subtype?: string;
  status?: string;
}

export interface CostInfo {
  costUsd: number;
  totalCostUsd?: number;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheCreationTokens?: number;
  reasoningTokens?: number;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheCreationTokens?: number;
  contextWindow?: number;
  maxOutputTokens?: number;
  costUsd?: number;
}

export interface Message {
  id: string;
  role: Role;
  parts: Part[] | null;
  timestamp: string;
  cost?: CostInfo;
  usage?: TokenUsage;
  model?: string;
  parentToolUseId?: string;
  isSynthetic?: boolean;
  isError?: boolean;
  result?: string;
  durationMs?: number;
  totalCost?: CostInfo;
  modelUsage?: Record<string, ModelUsage>;
  metadata?: Record<string, Json>;
}

export interface PermissionOption {
  id: string;
  name: string;
  kind: string; // allow_once | allow_always | reject_once | reject_always
}

export interface QuestionOption {
  id: string;
  label: string;
  description?: string;
  placeholder?: string;
}

export interface Question {
  question: string;
  header?: string;
  options?: QuestionOption[];
  multiSelect?: boolean;
}

export interface Request {
  requestId: string;
  toolName?: string;
  toolId?: string;
  input?: Json;
  description?: string;
  suggestions?: Json;
  patterns?: string[];
  permissionOptions?: PermissionOption[];
  question?: string;
  options?: QuestionOption[];
  questions?: Question[];
}

export interface Result {
  text?: string;
  isError: boolean;
  cost?: CostInfo;
  durationMs?: number;
  usage?: TokenUsage;
  modelUsage?: Record<string, ModelUsage>;
  reason?: string;
  interrupted?: boolean;
}

/** An event's type: the generated enum's values (backend/agent/event.go). */
export type EventType = `${agent.EventType}`;

/**
 * A delta appends text to one part of a message already received whole
 * (backend/agent/event.go Delta). Its JSON is compact: part 0 and field
 * "text" are left out.
 */
export interface Delta {
  part?: number;
  field?: "text" | "reasoning" | "output";
  text: string;
}

export interface AgentEvent {
  type: EventType;
  message?: Message;
  messageId?: string;
  request?: Request;
  sessionId?: string;
  title?: string;
  summary?: string;
  mode?: InteractionMode;
  toolId?: string;
  state?: ToolState;
  /** tool-state-update's result text. */
  result?: string | Result;
  error?: string;
  fatal?: boolean;
  retryAfterMs?: number;
  attempt?: number;
  maxRetries?: number;
  /** delta: what to append (messageId names the message). */
  delta?: Delta;
}

/** Payload of the Wails "agent:event" event. */
export interface AgentEventEnvelope {
  taskId: string;
  seq: number;
  event: AgentEvent;
}

/** A pending permission request or question (the "requests:updated" payload items). */
export interface PendingRequest {
  taskId?: string;
  /** "permission" | "question". */
  kind?: string;
  requestId?: string;
  request?: Request;
  createdAt?: number;
}

export interface QueuedMessage {
  id: string;
  taskId: string;
  text: string;
  position: number;
  createdAt: number;
}

/**
 * The user's answer to a question ("question:answered"), as stored before it
 * was sent: for each question of request, in order, the labels chosen or the
 * text typed.
 */
export interface QuestionAnswer {
  id?: number;
  taskId: string;
  requestId: string;
  toolId?: string;
  request: Request;
  answers: string[][];
  createdAt: number;
}

/** An answer given to a permission request, by the user or by a rule ("permission:decided"). */
export interface PermissionDecision {
  id?: number;
  taskId: string;
  requestId: string;
  toolId?: string;
  toolName: string;
  input?: string;
  behavior: string; // allow | deny
  scope: string; // once | task | project
  source: string; // user | rule
  ruleId?: string;
  label: string;
  message?: string;
  createdAt: number;
}
