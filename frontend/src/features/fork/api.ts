// Fork and spawn through HistoryService (generated bindings).

import * as HistoryService from "../../bridge/wailsjs/go/services/HistoryService";
import { services } from "../../bridge/wailsjs/go/models";
import { toTask } from "../../bridge/api";
import type { Task } from "../../bridge/types";

export type TaskLink = services.TaskLink;
export interface Links {
  parent?: TaskLink;
  children: TaskLink[];
}

export interface ForkApi {
  fork(taskId: string, messageId: string, backend: string, prompt: string): Promise<Task>;
  spawn(taskId: string, backend: string, prompt: string): Promise<Task>;
  links(taskId: string): Promise<Links>;
}

function available(): boolean {
  return Boolean((window as unknown as { go?: { services?: { HistoryService?: unknown } } }).go?.services?.HistoryService);
}

export function wailsForkApi(): ForkApi {
  const need = () => {
    if (!available()) throw new Error("fork is not available (no Wails backend)");
  };
  return {
    async fork(taskId, messageId, backend, prompt) {
      need();
      return toTask(await HistoryService.Fork(services.ForkInput.createFrom({ taskId, messageId, backend, prompt })));
    },
    async spawn(taskId, backend, prompt) {
      need();
      return toTask(await HistoryService.Spawn(taskId, backend, prompt));
    },
    async links(taskId) {
      if (!available()) return { children: [] };
      const l = await HistoryService.Links(taskId);
      return { parent: l.parent ?? undefined, children: l.children ?? [] };
    },
  };
}
