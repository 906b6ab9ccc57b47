// The events Go emits reach the page through a feed (eventbatch.go): Wails
// v2 hands every event to the WebKit window as a script holding its
// payload, and the window's web process kept memory in proportion to the
// payload bytes so delivered (README, "make soak"). So Go emits only
// "events:ready", which carries no data, and the page fetches the events
// from FEED_PATH, where they arrive as a response body; each is then handed
// to the runtime's listeners of its own name, in order, exactly as if Wails
// had delivered it, so subscribers by name (onEvent, the terminal's) are
// unchanged.

import { EventsOn } from "./wailsjs/runtime/runtime";

/** READY is the Go event that says the feed has new events (no data). */
export const READY = "events:ready";
/** FEED_PATH serves the events after a cursor: GET FEED_PATH?after=N. */
export const FEED_PATH = "/_jc/events";

/** One event of the feed: its name and its payload. */
export type FeedEvent = { name: string; data: unknown };
/** The feed's answer: the events after the cursor asked, and the next cursor. */
export type FeedPage = { last: number; gap: boolean; events: FeedEvent[] };

export type FeedDeps = {
  fetchPage: (after: number) => Promise<FeedPage>;
  dispatch: (ev: FeedEvent) => void;
  onError: (err: unknown) => void;
};

/**
 * createFeed returns pull(), to call on each "events:ready" (and once at
 * start, which only takes the cursor: events from before the page
 * subscribed are not replayed). One fetch at a time: a notice during a
 * fetch makes one more fetch after it, so events go out in order and none
 * is missed. A listener that throws does not lose the rest.
 */
export function createFeed({ fetchPage, dispatch, onError }: FeedDeps): { pull: () => Promise<void> } {
  let cursor = -1;
  let running: Promise<void> | null = null;
  let again = false;
  const once = async () => {
    const page = await fetchPage(cursor);
    const first = cursor < 0;
    cursor = page.last;
    if (first) return;
    if (page.gap) onError(new Error("events were dropped before this page fetched them"));
    for (const ev of page.events ?? []) {
      if (typeof ev?.name !== "string") continue;
      try {
        dispatch(ev);
      } catch (err) {
        onError(err);
      }
    }
  };
  const loop = async () => {
    try {
      do {
        again = false;
        await once();
      } while (again);
    } catch (err) {
      onError(err);
    } finally {
      running = null;
    }
  };
  return {
    pull: () => {
      if (running) {
        again = true;
        return running;
      }
      running = loop();
      return running;
    },
  };
}

type WailsGlobal = { wails?: { EventsNotify?: (json: string) => void }; runtime?: unknown };

/** installEventFeed subscribes to READY and hands the fetched events to
 * the Wails runtime's listeners. Without the Wails runtime it does
 * nothing. Returns the function that uninstalls it. */
export function installEventFeed(fetchImpl: typeof fetch = (...a) => fetch(...a)): () => void {
  const w = window as unknown as WailsGlobal;
  const notify = w.wails?.EventsNotify;
  if (!w.runtime || !notify) return () => {};
  const feed = createFeed({
    fetchPage: async (after) => {
      const res = await fetchImpl(`${FEED_PATH}?after=${after}`, { cache: "no-store" });
      if (!res.ok) throw new Error(`${FEED_PATH}: ${res.status}`);
      return (await res.json()) as FeedPage;
    },
    dispatch: (ev) => notify(JSON.stringify({ name: ev.name, data: [ev.data] })),
    onError: (err) => console.error("event feed:", err),
  });
  const off = EventsOn(READY, () => void feed.pull());
  void feed.pull();
  return off;
}
