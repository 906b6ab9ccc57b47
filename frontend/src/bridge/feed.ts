// The events Go emits reach the page through a feed (eventbatch.go): Wails
// v2 hands every event to the WebKit window as a script holding its
// payload, and the window's web process kept memory in proportion to the
// payload bytes so delivered, and then in proportion to the number of
// scripts, even without payload (README, "make soak"). So Go runs no
// script per event: the page keeps one fetch of FEED_PATH open, whose
// answer streams a line (a FeedPage) whenever a batch holds an event the
// page listens to; each event is then handed to the runtime's listeners of
// its own name, in order, exactly as if Wails had delivered it, so
// subscribers by name (onEvent, the terminal's) are unchanged. One fetch
// per batch (a long poll) grew the window's web process and the app by
// ~0.4 KB a fetch, never given back (make soak; a page watching a
// streaming task fetched several times a second): a stream is one fetch
// every few minutes. The page asks only for the names it has listeners
// for (trackListeners): a window that shows no task is not sent every
// task's messages, which it would parse and drop (issue 20, make soak).

/** FEED_PATH serves the events after a cursor: GET FEED_PATH?after=N. */
export const FEED_PATH = "/_jc/events";
/** RETRY_MS is the pause after a failed fetch before the next. */
export const RETRY_MS = 1_000;

/** One event of the feed: its name and its payload. */
export type FeedEvent = { name: string; data: unknown };
/** The feed's answer: the events after the cursor asked, and the next cursor. */
export type FeedPage = { last: number; gap: boolean; events: FeedEvent[] };

/** What one fetch asks: the cursor, the names (null: every event) and
 * the page's count of names it began to listen to when it asked. */
export type FeedAsk = { after: number; names: string[] | null; v: number };

export type FeedDeps = {
  /** pages streams the feed's pages from ask: the first at once (for a
   * first ask, cursor -1, only the cursor), then one whenever events it
   * asks for come (or none, now and then: where the feed stands), until
   * the feed ends the stream (it lasted long enough, or the page's names
   * changed: wake) or the iteration is left. */
  pages: (ask: FeedAsk) => AsyncIterable<FeedPage>;
  /** wake tells the feed the page listens to new names (count v): a
   * stream asked with older names ends at once. */
  wake: (v: number) => Promise<void>;
  dispatch: (ev: FeedEvent) => void;
  onError: (err: unknown) => void;
  /** The names to ask for (absent: every event). */
  listening?: Listening;
  /** sleep waits after a failed fetch (tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
};

/** Feed is a running feed. */
export type Feed = {
  /** added is to be called when a name gains its first listener. */
  added: () => void;
  stop: () => void;
  /** done settles when the loop has ended (after stop). */
  done: Promise<void>;
};

/**
 * startFeed reads the feed's streams in a loop, one at a time, so events
 * go out in order and none is missed. The first page only takes the
 * cursor: events from before the page subscribed are not replayed. A
 * listener that throws does not lose the rest; a failed stream (or one
 * that ended without a page) is reported and asked again after RETRY_MS.
 * With listening, a stream asks only for the names listened to; when a
 * name gained a listener since it was asked, its pages are no longer
 * taken and the same cursor is asked again with the new names (the feed
 * is woken so that this happens at once), so a listener misses no event
 * the feed got after it subscribed.
 */
export function startFeed({ pages, wake, dispatch, onError, listening, sleep = pause }: FeedDeps): Feed {
  let cursor = -1;
  let stopped = false;
  /** take hands over one page; false: the stream is to be left. */
  const take = (page: FeedPage, v: number): boolean => {
    const stale = listening !== undefined && listening.added() !== v;
    if (stopped || (stale && cursor >= 0)) return false;
    const first = cursor < 0;
    cursor = page.last;
    if (first) return !stale;
    if (page.gap) onError(new Error("events were dropped before this page fetched them"));
    for (const ev of page.events ?? []) {
      if (typeof ev?.name !== "string") continue;
      try {
        dispatch(ev);
      } catch (err) {
        onError(err);
      }
    }
    return true;
  };
  const once = async () => {
    const v = listening?.added() ?? 0;
    let n = 0;
    for await (const page of pages({ after: cursor, names: listening ? listening.names() : null, v })) {
      n++;
      if (!take(page, v)) return;
    }
    if (n === 0 && !stopped) throw new Error("the event feed ended without a page");
  };
  const loop = async () => {
    while (!stopped) {
      try {
        await once();
      } catch (err) {
        if (stopped) return;
        onError(err);
        await sleep(RETRY_MS);
      }
    }
  };
  return {
    added: () => {
      if (listening && cursor >= 0) wake(listening.added()).catch(onError);
    },
    stop: () => void (stopped = true),
    done: loop(),
  };
}

/** readPages reads a streamed answer of the feed: one FeedPage per line.
 * Leaving the iteration cancels the answer (its fetch ends). */
export async function* readPages(body: ReadableStream<Uint8Array>): AsyncGenerator<FeedPage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buf += decoder.decode(value, { stream: !done });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim()) yield JSON.parse(line) as FeedPage;
      }
      if (done) break;
    }
    if (buf.trim()) yield JSON.parse(buf) as FeedPage;
  } finally {
    reader.cancel().catch(() => {});
  }
}

const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

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
 * and EventsOffAll forget what they remove. onAdded is called when a name
 * gains its first listener (once the listener is in place).
 */
export function trackListeners(rt: EventsRuntime, onAdded: () => void = () => {}): Listening {
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
      const first = set.size === 0;
      if (first) added++;
      set.add(token);
      let left = max > 0 ? max : -1;
      const off = onMultiple(name, (...data: unknown[]) => {
        if (left > 0 && --left === 0) forget(name, token);
        cb(...data);
      }, max);
      if (first) onAdded();
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

/** feedURL is the address of one fetch of the feed: a cursor, the names
 * asked (null: all), and for a stream the page and its count of names (a
 * wake with a higher count ends it). */
export function feedURL(ask: FeedAsk, stream?: { page: string }): string {
  let url = `${FEED_PATH}?after=${ask.after}`;
  if (ask.names) url += `&names=${encodeURIComponent(JSON.stringify(ask.names))}`;
  if (stream) url += `&stream=1&page=${encodeURIComponent(stream.page)}&v=${ask.v}`;
  return url;
}

/** wakeURL tells the feed that the page listens to new names (its v-th). */
export function wakeURL(page: string, v: number): string {
  return `${FEED_PATH}?wake=${encodeURIComponent(page)}&v=${v}`;
}

/** installEventFeed hands the feed's events to the Wails runtime's
 * listeners, asking only for the names they listen to: call it before
 * anything subscribes (main.tsx), so that every subscription is tracked.
 * Without the Wails runtime it does nothing. Returns the function that
 * stops it. */
export function installEventFeed(fetchImpl: typeof fetch = (...a) => fetch(...a)): () => void {
  const w = window as unknown as WailsGlobal;
  const notify = w.wails?.EventsNotify;
  if (!w.runtime || !notify) return () => {};
  const page = Math.random().toString(36).slice(2) + Date.now().toString(36);
  let feed: Feed | null = null;
  const listening = trackListeners(w.runtime, () => feed?.added());
  feed = startFeed({
    listening,
    pages: async function* (ask) {
      const res = await fetchImpl(feedURL(ask, { page }), { cache: "no-store" });
      if (!res.ok) throw new Error(`${FEED_PATH}: ${res.status}`);
      if (!res.body) throw new Error(`${FEED_PATH}: no body to read`);
      yield* readPages(res.body);
    },
    wake: async (v) => {
      const res = await fetchImpl(wakeURL(page, v), { cache: "no-store" });
      if (!res.ok) throw new Error(`${FEED_PATH} wake: ${res.status}`);
    },
    dispatch: (ev) => notify(JSON.stringify({ name: ev.name, data: [ev.data] })),
    onError: (err) => console.error("event feed:", err),
  });
  return () => feed?.stop();
}
