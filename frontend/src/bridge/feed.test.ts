import { feedURL, installEventFeed, readPages, RETRY_MS, startFeed, trackListeners, wakeURL, type EventsRuntime, type FeedAsk, type FeedEvent, type FeedPage } from "./feed";

/** server is a fake feed that streams as eventbatch.go does: batches
 * numbered from 1; a stream's first page comes at once (for a first ask,
 * cursor -1, with the cursor only), then one whenever events it asks for
 * come after its cursor; it ends when a wake with a higher count than its
 * own came, or when the server ends its streams (endStreams: they lasted
 * long enough). */
function server() {
  const batches: FeedEvent[][] = [];
  const asks: FeedAsk[] = [];
  let waiting: (() => void)[] = [];
  let woken = 0;
  let ended = 0;
  let fail = false;
  let open = 0;
  const answer = (after: number, names: string[] | null): FeedPage => ({
    last: batches.length,
    gap: false,
    events: after < 0 ? [] : batches.slice(after).flat().filter((e) => !names || names.includes(e.name)),
  });
  const wakeAll = () => {
    const w = waiting;
    waiting = [];
    w.forEach((f) => f());
  };
  const changed = () => new Promise<void>((r) => waiting.push(r));
  return {
    batches,
    asks,
    failNext: () => void (fail = true),
    open: () => open,
    push(...b: FeedEvent[][]) {
      batches.push(...b);
      wakeAll();
    },
    endStreams() {
      ended++;
      wakeAll();
    },
    pages: async function* (ask: FeedAsk): AsyncGenerator<FeedPage> {
      asks.push(ask);
      if (fail) {
        fail = false;
        throw new Error("down");
      }
      const epoch = ended;
      open++;
      try {
        let after = ask.after;
        if (after < 0) {
          const first = answer(after, ask.names);
          yield first;
          after = first.last;
        }
        while (ask.v >= woken && ended === epoch) {
          const page = answer(after, ask.names);
          if (page.events.length === 0) {
            await changed();
            continue;
          }
          yield page;
          after = page.last;
        }
      } finally {
        open--;
      }
    },
    wake: async (v: number) => {
      woken = Math.max(woken, v);
      wakeAll();
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));
const rethrow = (e: unknown) => {
  throw e;
};

test("the first page only takes the cursor; each page hands over its events in order, all through one open stream", async () => {
  const s = server();
  s.batches.push([{ name: "old", data: 0 }]);
  const got: unknown[] = [];
  const feed = startFeed({ pages: s.pages, wake: s.wake, dispatch: (e) => got.push(e.data), onError: rethrow });
  await tick();
  expect(got).toEqual([]);
  expect(s.open()).toBe(1); // one stream waits: nothing runs while nothing comes
  s.push([{ name: "a", data: 1 }, { name: "b", data: 2 }], [{ name: "a", data: 3 }]);
  await tick();
  expect(got).toEqual([1, 2, 3]);
  s.push([{ name: "a", data: 4 }]);
  await tick();
  expect(got).toEqual([1, 2, 3, 4]);
  expect(s.asks.map((a) => a.after)).toEqual([-1]); // one fetch for all of it
  feed.stop();
  s.push([{ name: "a", data: 5 }]);
  await feed.done;
  expect(got).toEqual([1, 2, 3, 4]); // stopped: the page under way is not handed over
  expect(s.open()).toBe(0); // and the stream is left
});

test("a listener that throws does not lose the rest; a stream that ends is asked again from its cursor; a failed one is reported and tried again after a pause", async () => {
  const s = server();
  const errors: string[] = [];
  const got: unknown[] = [];
  const pauses: number[] = [];
  const feed = startFeed({
    pages: s.pages,
    wake: s.wake,
    dispatch: (e) => {
      if (e.data === 1) throw new Error("boom");
      got.push(e.data);
    },
    onError: (e) => errors.push((e as Error).message),
    sleep: async (ms) => void pauses.push(ms),
  });
  await tick();
  s.push([{ name: "x", data: 1 }, { name: "x", data: 2 }]);
  await tick();
  expect(got).toEqual([2]);
  s.failNext();
  s.endStreams(); // the stream lasted long enough; asking again fails once
  await tick();
  await tick();
  s.push([{ name: "x", data: 3 }]);
  await tick();
  await tick();
  expect(got).toEqual([2, 3]);
  expect(errors).toEqual(["boom", "down"]);
  expect(pauses).toEqual([RETRY_MS]);
  expect(s.asks.map((a) => a.after)).toEqual([-1, 1, 1]);
  feed.stop();
});

test("a stream that ends without a page is an error, not a loop", async () => {
  const errors: string[] = [];
  const pauses: number[] = [];
  let asks = 0;
  const feed = startFeed({
    pages: async function* () {
      asks++;
    },
    wake: async () => {},
    dispatch: () => {},
    onError: (e) => errors.push((e as Error).message),
    sleep: async (ms) => {
      pauses.push(ms);
      if (pauses.length === 2) feed.stop();
    },
  });
  await feed.done;
  expect(asks).toBe(2);
  expect(errors).toEqual(["the event feed ended without a page", "the event feed ended without a page"]);
});

test("a name gaining a listener: pages asked with the old names are not taken, and the same cursor is asked again with the new names", async () => {
  const s = server();
  const names = new Set<string>(["a"]);
  let added = 1;
  const listening = { names: () => [...names].sort(), added: () => added };
  const got: string[] = [];
  const feed = startFeed({ listening, pages: s.pages, wake: s.wake, dispatch: (e) => got.push(`${e.name}${e.data}`), onError: rethrow });
  await tick();
  s.push([{ name: "b", data: 1 }]); // not asked for: the stream waits on
  await tick();
  expect(got).toEqual([]);
  names.add("b"); // b's listener subscribes while the stream waits
  added++;
  s.push([{ name: "a", data: 2 }]); // a page for the old names comes before the wake
  await tick();
  await tick();
  expect(got).toEqual(["b1", "a2"]); // b1 not skipped: the old names' page was not taken
  expect(s.asks.map((a) => [a.after, a.names, a.v])).toEqual([
    [-1, ["a"], 1],
    [0, ["a", "b"], 2],
  ]);
  names.add("c");
  added++;
  feed.added(); // the wake ends the stream asked with the old names
  await tick();
  await tick();
  expect(s.asks.map((a) => [a.after, a.names, a.v]).slice(2)).toEqual([[2, ["a", "b", "c"], 3]]);
  expect(s.open()).toBe(1);
  feed.stop();
});

/** ndjson is a streamed answer: the pages as lines, cut into chunks of size bytes. */
function ndjson(pages: AsyncIterable<FeedPage>, size: number, cancelled?: () => void): ReadableStream<Uint8Array> {
  const it = pages[Symbol.asyncIterator]();
  const enc = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(ctl) {
      const r = await it.next();
      if (r.done) return ctl.close();
      const bytes = enc.encode(JSON.stringify(r.value) + "\n");
      for (let i = 0; i < bytes.length; i += size) ctl.enqueue(bytes.slice(i, i + size));
    },
    cancel() {
      cancelled?.();
      void it.return?.(undefined);
    },
  });
}

test("readPages reads a line per page, however the chunks cut them, and cancels the answer when left", async () => {
  const pages: FeedPage[] = [1, 2, 3].map((n) => ({ last: n, gap: false, events: [{ name: "é", data: "ü".repeat(n) }] }));
  async function* gen() {
    yield* pages;
  }
  for (const size of [1, 3, 1000]) {
    const read: FeedPage[] = [];
    for await (const p of readPages(ndjson(gen(), size))) read.push(p);
    expect(read).toEqual(pages);
  }
  let cancelled = 0;
  for await (const p of readPages(ndjson(gen(), 7, () => cancelled++))) {
    expect(p.last).toBe(1);
    break;
  }
  expect(cancelled).toBe(1);
});

test("installed, one streamed fetch of the feed hands each event to its own listeners; a new name wakes it", async () => {
  const listeners: Record<string, ((...d: unknown[]) => void)[]> = {};
  const w = window as unknown as Record<string, unknown>;
  w.runtime = {
    EventsOnMultiple: (name: string, cb: (...d: unknown[]) => void) => {
      (listeners[name] ??= []).push(cb);
      return () => {};
    },
  };
  w.wails = {
    EventsNotify: (json: string) => {
      const m = JSON.parse(json) as { name: string; data: unknown[] };
      for (const cb of listeners[m.name] ?? []) cb(...m.data);
    },
  };
  const s = server();
  const urls: string[] = [];
  const fakeFetch = (async (url: string) => {
    urls.push(url);
    const q = new URL(url, "http://x").searchParams;
    if (q.has("wake")) {
      await s.wake(Number(q.get("v")));
      return { ok: true };
    }
    const names = q.get("names");
    const ask = { after: Number(q.get("after")), names: names ? JSON.parse(names) : null, v: Number(q.get("v")) };
    return { ok: true, body: ndjson(s.pages(ask), 5) };
  }) as unknown as typeof fetch;
  const stop = installEventFeed(fakeFetch);
  const settle = async () => {
    for (let i = 0; i < 20; i++) await tick();
  };
  await settle();
  const got: unknown[] = [];
  (w.runtime as { EventsOnMultiple: (n: string, cb: (p: unknown) => void) => void }).EventsOnMultiple("task:updated", (p) => got.push(p));
  await settle();
  s.push([{ name: "task:updated", data: { id: "t1" } }]);
  await settle();
  s.push([{ name: "task:updated", data: { id: "t2" } }]);
  await settle();
  expect(got).toEqual([{ id: "t1" }, { id: "t2" }]);
  const page = new URL(urls[0], "http://x").searchParams.get("page")!;
  expect(page).toMatch(/^[a-z0-9]{8,}$/);
  const names = (n: string[]) => `&names=${encodeURIComponent(JSON.stringify(n))}`;
  const stream = (v: number) => `&stream=1&page=${page}&v=${v}`;
  expect(urls).toEqual([
    `/_jc/events?after=-1${names([])}${stream(0)}`,
    `/_jc/events?wake=${page}&v=1`, // task:updated gained a listener: the stream ends
    `/_jc/events?after=0${names(["task:updated"])}${stream(1)}`, // both events through this one
  ]);
  stop();
  delete w.runtime;
  delete w.wails;
});

test("without the Wails runtime, installing is a no-op", () => {
  expect(() => installEventFeed()()).not.toThrow();
});

/** fakeRuntime is the Wails runtime's listener list, as events.js keeps it. */
function fakeRuntime() {
  const listeners: Record<string, { cb: (...d: unknown[]) => void; left: number }[]> = {};
  const rt: EventsRuntime & { fire: (name: string, data: unknown) => void } = {
    EventsOnMultiple: (name, cb, max) => {
      const l = { cb, left: max };
      (listeners[name] ??= []).push(l);
      return () => (listeners[name] = (listeners[name] ?? []).filter((x) => x !== l));
    },
    EventsOff: (name, ...more) => [name, ...more].forEach((n) => delete listeners[n]),
    EventsOffAll: () => Object.keys(listeners).forEach((n) => delete listeners[n]),
    fire: (name, data) => {
      for (const l of [...(listeners[name] ?? [])]) {
        l.cb(data);
        if (l.left > 0 && --l.left === 0) listeners[name] = listeners[name].filter((x) => x !== l);
      }
    },
  };
  return rt;
}

test("trackListeners knows the names listened to, whichever way a listener goes", () => {
  const rt = fakeRuntime();
  const l = trackListeners(rt);
  expect(l.names()).toEqual([]);
  const offA = rt.EventsOn!("a", () => {});
  const offA2 = rt.EventsOnMultiple!("a", () => {}, -1);
  rt.EventsOnce!("b", () => {});
  expect(l.names()).toEqual(["a", "b"]);
  expect(l.added()).toBe(2);
  offA();
  expect(l.names()).toEqual(["a", "b"]); // a still has a listener
  offA2();
  rt.fire("b", 1); // a once-listener goes after its call
  expect(l.names()).toEqual([]);
  rt.EventsOn!("c", () => {});
  const offD = rt.EventsOn!("d", () => {});
  rt.EventsOff!("d");
  offD(); // already removed by EventsOff: nothing more to forget
  expect(l.names()).toEqual(["c"]);
  rt.EventsOn!("d", () => {});
  rt.EventsOffAll!();
  expect(l.names()).toEqual([]);
  expect(l.added()).toBe(5);
});

test("feedURL asks for every event without names, else for a JSON list; a stream (or a waiting fetch) says its page and count", () => {
  expect(feedURL({ after: 3, names: null, v: 0 })).toBe("/_jc/events?after=3");
  expect(feedURL({ after: 3, names: ["x:y"], v: 0 })).toBe(`/_jc/events?after=3&names=${encodeURIComponent('["x:y"]')}`);
  expect(feedURL({ after: 3, names: null, v: 2 }, { page: "p 1" })).toBe("/_jc/events?after=3&stream=1&page=p%201&v=2");
  expect(wakeURL("p 1", 2)).toBe("/_jc/events?wake=p%201&v=2");
});
