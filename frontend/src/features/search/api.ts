// The search feature's door to HistoryService (generated bindings), and the
// snippet format: matches between \u0002 and \u0003 (store.MarkStart/End).

import * as HistoryService from "../../bridge/wailsjs/go/services/HistoryService";
import { services } from "../../bridge/wailsjs/go/models";

export type SearchHit = services.SearchHit;

export interface SearchFilters {
  projectId: string;
  agent: string;
  role: string;
  /** YYYY-MM-DD, local; "" = open. */
  since: string;
  until: string;
}

export interface SearchApi {
  search(text: string, f: SearchFilters, before?: number): Promise<SearchHit[]>;
}

const DAY = 24 * 60 * 60 * 1000;

/** dayMs turns a YYYY-MM-DD into local midnight in ms (0 when empty). */
export function dayMs(day: string, endOfDay = false): number {
  if (!day) return 0;
  const [y, m, d] = day.split("-").map(Number);
  const t = new Date(y, (m || 1) - 1, d || 1).getTime();
  return endOfDay ? t + DAY - 1 : t;
}

export function wailsSearchApi(): SearchApi {
  return {
    async search(text, f, before = 0) {
      const svc = (window as unknown as { go?: { services?: { HistoryService?: unknown } } }).go?.services?.HistoryService;
      if (!svc) throw new Error("search is not available (no Wails backend)");
      const input = services.SearchInput.createFrom({
        text,
        projectId: f.projectId,
        agent: f.agent,
        role: f.role,
        from: dayMs(f.since),
        to: dayMs(f.until, true),
        limit: 50,
        before,
      });
      return (await HistoryService.Search(input)) ?? [];
    },
  };
}

export interface SnippetPiece {
  text: string;
  match: boolean;
}

/** splitSnippet cuts a snippet into plain and matched pieces. */
export function splitSnippet(s: string): SnippetPiece[] {
  const out: SnippetPiece[] = [];
  let rest = s;
  while (rest) {
    const a = rest.indexOf("\u0002");
    if (a < 0) {
      out.push({ text: rest, match: false });
      break;
    }
    if (a > 0) out.push({ text: rest.slice(0, a), match: false });
    const b = rest.indexOf("\u0003", a + 1);
    const end = b < 0 ? rest.length : b;
    out.push({ text: rest.slice(a + 1, end), match: true });
    rest = b < 0 ? "" : rest.slice(b + 1);
  }
  return out;
}
