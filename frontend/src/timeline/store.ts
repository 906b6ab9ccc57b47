// TimelineStore owns one task's TimelineState and batches incoming events:
// events are queued and applied together once per animation frame, then
// subscribers are notified once. The display rows are recomputed only when
// the structure or a revision changed.

import { addAnswers, addDecisions, applyEnvelopes, emptyState, loadMessages, prependMessages, setPending, type PendingCard, type TimelineState } from "./state";
import { toDisplayRows, type DisplayRow } from "./groups";
import type { AgentEventEnvelope, Message, PermissionDecision, QuestionAnswer } from "./types";

export type Scheduler = (cb: () => void) => void;

const rafScheduler: Scheduler = (cb) => {
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => cb());
  else setTimeout(cb, 16);
};

export interface TimelineSnapshot {
  rows: DisplayRow[];
  /** Bumped at every flush that changed anything. */
  version: number;
  /** Changes only when rows were added, removed or reordered. */
  structure: number;
  pendingCount: number;
}

/** A page of the stored transcript (SessionService.MessagePage), oldest first. */
export interface TranscriptPage {
  messages: Message[] | null;
  /** The page's oldest message's position: the cursor for the page before it (-1: empty page). */
  cursor: number;
  hasOlder: boolean;
}

export class TimelineStore {
  readonly state: TimelineState = emptyState();
  private queue: AgentEventEnvelope[] = [];
  private scheduled = false;
  private listeners = new Set<() => void>();
  private snapshot: TimelineSnapshot = { rows: [], version: 0, structure: 0, pendingCount: 0 };
  private lastRevCounter = -1;
  private lastStructure = -1;
  private loaded = false;
  /** The latest live pending list received before load (see load). */
  private livePending: readonly PendingCard[] | null = null;
  private rowIndex: Map<string, number> | null = null;
  /** Where the next older page ends (its before cursor) and whether there is one. */
  older: { cursor: number; has: boolean } = { cursor: -1, has: false };
  /** Number of flushes, for tests and the benchmark. */
  flushes = 0;

  constructor(private readonly schedule: Scheduler = rafScheduler) {}

  /** load installs the stored transcript; events that arrived before it are applied after. */
  load(msgs: readonly Message[], pending: readonly PendingCard[] = []): void {
    loadMessages(this.state, msgs);
    // A live "requests:updated" that came while the transcript loaded is
    // newer than (or as new as) the list fetched with it: the fetch may have
    // been read before the request was stored. Letting the stale fetch win
    // hid the first task's permission card until the next update (~8 s).
    setPending(this.state, this.livePending ?? pending);
    this.livePending = null;
    this.loaded = true;
    const q = this.queue;
    this.queue = [];
    applyEnvelopes(this.state, q, Date.now());
    this.publish();
  }

  /** loadPage installs the newest page of the transcript (see load) and remembers where older pages start. */
  loadPage(page: TranscriptPage, pending: readonly PendingCard[] = []): void {
    this.older = { cursor: page.cursor, has: page.hasOlder && page.cursor > 0 };
    this.load(page.messages ?? [], pending);
  }

  /** prependPage adds an older page (from older.cursor) before the messages held. */
  prependPage(page: TranscriptPage): void {
    const msgs = page.messages ?? [];
    if (msgs.length > 0) this.older = { cursor: page.cursor, has: page.hasOlder && page.cursor > 0 };
    else this.older = { cursor: this.older.cursor, has: false };
    prependMessages(this.state, msgs);
    this.publish(true);
  }

  isLoaded(): boolean {
    return this.loaded;
  }

  /** push queues events for the next animation frame. */
  push(...envs: AgentEventEnvelope[]): void {
    for (const e of envs) this.queue.push(e);
    if (!this.loaded || this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => this.flush());
  }

  /** flush applies every queued event now. */
  flush(): void {
    this.scheduled = false;
    if (!this.loaded || this.queue.length === 0) return;
    const q = this.queue;
    this.queue = [];
    applyEnvelopes(this.state, q, Date.now());
    this.flushes++;
    this.publish();
  }

  setPending(cards: readonly PendingCard[]): void {
    if (!this.loaded) this.livePending = cards;
    setPending(this.state, cards);
    this.publish(true);
  }

  addDecisions(ds: readonly PermissionDecision[]): void {
    addDecisions(this.state, ds);
    this.publish(true);
  }

  addAnswers(as: readonly QuestionAnswer[]): void {
    addAnswers(this.state, as);
    this.publish(true);
  }

  removePending(requestId: string): void {
    if (this.state.pending.delete(requestId)) this.publish(true);
  }

  /**
   * publish updates the rows and notifies subscribers. When no row was added,
   * removed or reordered, only the rows of changed messages are replaced
   * (O(changed)); otherwise the rows are rebuilt.
   */
  publish(force = false): void {
    const s = this.state;
    if (!force && s.revCounter === this.lastRevCounter && s.structureRev === this.lastStructure && this.snapshot.pendingCount === s.pending.size) {
      return;
    }
    let rows: DisplayRow[];
    let rebuilt = false;
    if (s.structureRev !== this.lastStructure || this.rowIndex === null) {
      rebuilt = true;
      rows = toDisplayRows(s);
      this.rowIndex = new Map();
      rows.forEach((r, i) => {
        if (r.kind === "quiet") for (const id of r.ids) this.rowIndex!.set(id, i);
        else if (r.kind !== "notice") this.rowIndex!.set(r.id, i);
      });
    } else if (s.dirty.size > 0) {
      rows = this.snapshot.rows.slice();
      for (const id of s.dirty) {
        const i = this.rowIndex.get(id);
        const e = s.messages.get(id);
        if (i === undefined || !e) continue;
        const r = rows[i];
        if (r.kind !== "notice") rows[i] = { ...r, rev: e.rev };
      }
    } else {
      rows = this.snapshot.rows;
    }
    s.dirty.clear();
    this.lastRevCounter = s.revCounter;
    this.lastStructure = s.structureRev;
    const structure = rebuilt ? this.snapshot.structure + 1 : this.snapshot.structure;
    this.snapshot = { rows, version: this.snapshot.version + 1, structure, pendingCount: s.pending.size };
    for (const l of this.listeners) l();
  }

  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };

  getSnapshot = (): TimelineSnapshot => this.snapshot;
}
