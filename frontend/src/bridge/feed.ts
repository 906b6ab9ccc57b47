// The events Go emits reach the page through a feed (eventbatch.go): Wails
// v2 hands every event to the WebKit window as a script holding its
// payload, and the window's web process kept memory in proportion to the
// payload bytes so delivered (README, "make soak"). So Go emits only
// "events:ready", which carries no data, and the page fetches the events
// from FEED_PATH, where they arrive as a response body; each is then handed
// to the runtime's listeners of its own name, in order, exactly as if Wails
// had delivered it, so subscribers by name (onEvent, the terminal's) are
// unchanged. The page asks only for the names it has listeners for
// (trackListeners): a window that shows no task is not sent every task's
// messages, which it would parse and drop (issue 20, make soak).

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
  /** names null: every event. */
  fetchPage: (after: number, names: string[] | null) => Promise<FeedPage>;
  dispatch: (ev: FeedEvent) => void;
  onError: (err: unknown) => void;
  /** The names to ask for (absent: every event). */
  listening?: Listening;
};

/**
 * createFeed returns pull(), to call on each "events:ready" (and once at
 * start, which only takes the cursor: events from before the page
 * subscribed are not replayed). One fetch at a time: a notice during a
 * fetch makes one more fetch after it, so events go out in order and none
 * is missed. A listener that throws does not lose the rest. With
 * listening, a fetch asks only for the names listened to; when a name
 * gained a listener while it was under way, its answer is dropped and the
 * same cursor fetched again with the new names, so a listener misses no
 * event the feed sent after it subscribed.
 */
export function createFeed({ fetchPage, dispatch, onError, listening }: FeedDeps): { pull: () => Promise<void> } {
  let cursor = -1;
  let running: Promise<void> | null = null;
  let again = false;
  const once = async () => {
    const added = listening?.added() ?? 0;
    const page = await fetchPage(cursor, listening ? listening.names() : null);
    const first = cursor < 0;
    if (!first && listening && listening.added() !== added) {
      again = true; // a new listener's events may be missing from it
      return;
    }
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

/** Listening is the event names the page has listeners for. */
export type Listening = {
  names: () => string[];
  /** added counts the times a name went from no listener to one. */
  added: () => number;
};

type Off = () => void;
type Callback = (...data: unknown[]) => void;
/** The Wails runtime's subscription functions (window.runtime). */
export type EventsRuntime = {
  EventsOnMultiple?: (name: string, cb: Callback, max: number) => Off;
  EventsOn?: (name: string, cb: Callback) => Off;
  EventsOnce?: (name: string, cb: Callback) => Off;
  EventsOff?: (name: string, ...more: string[]) => void;
  EventsOffAll?: () => void;
};

/**
 * trackListeners wraps the runtime's subscription functions (every
 * subscription of the page goes through them: the generated runtime calls
 * window.runtime's) and keeps, per name, the subscriptions still live.
 * A listener limited to max calls counts until its last call; EventsOff
 * and EventsOffAll forget what they remove.
 */
export function trackListeners(rt: EventsRuntime): Listening {
  const live = new Map<string, Set<object>>();
  let added = 0;
  const forget = (name: string, token: object) => {
    const set = live.get(name);
    if (!set?.delete(token) || set.size > 0) return;
    live.delete(name);
  };
  const onMultiple = rt.EventsOnMultiple;
  if (onMultiple) {
    const wrapped = (name: string, cb: Callback, max: number): Off => {
      const token = {};
      let set = live.get(name);
      if (!set) live.set(name, (set = new Set()));
      if (set.size === 0) added++;
      set.add(token);
      let left = max > 0 ? max : -1;
      const off = onMultiple(name, (...data: unknown[]) => {
        if (left > 0 && --left === 0) forget(name, token);
        cb(...data);
      }, max);
      return () => {
        forget(name, token);
        off();
      };
    };
    rt.EventsOnMultiple = wrapped;
    rt.EventsOn = (name, cb) => wrapped(name, cb, -1);
    rt.EventsOnce = (name, cb) => wrapped(name, cb, 1);
  }
  const off = rt.EventsOff;
  if (off) rt.EventsOff = (name, ...more) => {
    for (const n of [name, ...more]) live.delete(n);
    off(name, ...more);
  };
  const offAll = rt.EventsOffAll;
  if (offAll) rt.EventsOffAll = () => {
    live.clear();
    offAll();
  };
  return { names: () => [...live.keys()].sort(), added: () => added };
}

type WailsGlobal = { wails?: { EventsNotify?: (json: string) => void }; runtime?: EventsRuntime };

/** feedURL is the feed's address for a cursor and the names asked (null: all). */
export function feedURL(after: number, names: string[] | null): string {
  const url = `${FEED_PATH}?after=${after}`;
  return names ? `${url}&names=${encodeURIComponent(JSON.stringify(names))}` : url;
}

/** installEventFeed subscribes to READY and hands the fetched events to
 * the Wails runtime's listeners, asking only for the names they listen
 * to: call it before anything subscribes (main.tsx), so that every
 * subscription is tracked. Without the Wails runtime it does nothing.
 * Returns the function that uninstalls it. */
export function installEventFeed(fetchImpl: typeof fetch = (...a) => fetch(...a)): () => void {
  const w = window as unknown as WailsGlobal;
  const notify = w.wails?.EventsNotify;
  if (!w.runtime || !notify) return () => {};
  const listening = trackListeners(w.runtime);
  const feed = createFeed({
    listening,
    fetchPage: async (after, names) => {
      const res = await fetchImpl(feedURL(after, names), { cache: "no-store" });
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
