// The inbox's bridge: InboxService (items, plans, results) and the
// SessionService calls that answer permissions and questions, through the
// generated bindings (bridge/bound.ts). Tests use fake.ts.

import { call } from "../../bridge/bound";
import * as InboxService from "../../bridge/wailsjs/go/services/InboxService";
import * as SessionService from "../../bridge/wailsjs/go/services/SessionService";
import type { PermissionAnswer } from "../task-view/api";
import type { InboxPayload } from "./model";

export interface InboxApi {
  items(): Promise<InboxPayload>;
  respondToPermission(taskId: string, requestId: string, answer: PermissionAnswer): Promise<void>;
  respondToQuestion(taskId: string, requestId: string, answers: string[][]): Promise<void>;
  answerPlan(taskId: string, requestId: string, choice: string, message: string): Promise<void>;
  /** dismiss marks a finished task's result read. */
  dismiss(taskId: string): Promise<void>;
  retry?(taskId: string): Promise<void>;
}

export const wailsInboxApi: InboxApi = {
  items: () => call<InboxPayload>(InboxService.Items, "InboxService.Items"),
  respondToPermission: (id, rid, a) => call<void>(SessionService.RespondToPermission, "SessionService.RespondToPermission", id, rid, a),
  respondToQuestion: (id, rid, answers) => call<void>(SessionService.RespondToQuestion, "SessionService.RespondToQuestion", id, rid, answers),
  answerPlan: (id, rid, choice, message) => call<void>(InboxService.AnswerPlan, "InboxService.AnswerPlan", id, rid, choice, message),
  dismiss: (id) => call<void>(InboxService.Dismiss, "InboxService.Dismiss", id),
  retry: (id) => call<void>(SessionService.Retry, "SessionService.Retry", id),
};
