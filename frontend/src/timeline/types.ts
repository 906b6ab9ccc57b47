// Types of the agent contract exactly as the Go side marshals them
// (backend/agent/types.go and event.go). The task view works only from
// these: a normalized Message made of Parts, and the Events of a session.
//
// The Wails-generated classes (bridge/wailsjs/go/models.ts) are structurally
// compatible with these interfaces; these stay plain so fixtures and tests
// can be written as JSON.

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

export type ToolState = "pending" | "running" | "completed" | "error" | "denied" | "cancelled" | "interrupted";

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
  kind: "todo" | "write" | "skill";
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

export type EventType =
  | "message"
  | "message-removed"
  | "permission-request"
  | "question"
  | "session-id"
  | "session-updated"
  | "mode-change"
  | "tool-state-update"
  | "complete"
  | "error"
  | "rate-limit";

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
  /** "permission" | "question" (or the event type names). */
  kind?: string;
  type?: string;
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
