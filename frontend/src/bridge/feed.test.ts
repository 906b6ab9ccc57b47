import { createFeed, feedURL, installEventFeed, READY, trackListeners, type EventsRuntime, type FeedEvent, type FeedPage } from "./feed";

/** server is a fake feed: batches numbered from 1, answered after the cursor. */
function server() {
  const batches: FeedEvent[][] = [];
  const asked: number[] = [];
  let hold: Promise<void> | null = null;
  return {
    batches,
    asked,
    holdNext() {
      let release!: () => void;
      hold = new Promise((r) => (release = r));
      return () => release();
    },
    fetchPage: async (after: number): Promise<FeedPage> => {
      asked.push(after);
      if (hold) {
        const h = hold;
        hold = null;
        await h;
      }
      const events = after < 0 ? [] : batches.slice(after).flat();
      return { last: batches.length, gap: false, events };
    },
  };
}

test("the first pull only takes the cursor; later pulls hand over new events in order", async () => {
  const s = server();
  s.batches.push([{ name: "old", data: 0 }]);
  const got: FeedEvent[] = [];
  const feed = createFeed({ fetchPage: s.fetchPage, dispatch: (e) => got.push(e), onError: (e) => { throw e; } });
  await feed.pull();
  expect(got).toEqual([]);
  s.batches.push([{ name: "a", data: 1 }, { name: "b", data: 2 }], [{ name: "a", data: 3 }]);
  await feed.pull();
  expect(got.map((e) => e.data)).toEqual([1, 2, 3]);
  await feed.pull();
  expect(got).toHaveLength(3);
  expect(s.asked).toEqual([-1, 1, 3]);
});

test("a notice during a fetch makes one more fetch after it: nothing missed, nothing twice", async () => {
  const s = server();
  const got: unknown[] = [];
  const feed = createFeed({ fetchPage: s.fetchPage, dispatch: (e) => got.push(e.data), onError: (e) => { throw e; } });
  await feed.pull();
  s.batches.push([{ name: "x", data: 1 }]);
  const release = s.holdNext();
  const first = feed.pull();
  s.batches.push([{ name: "x", data: 2 }]);
  void feed.pull();
  void feed.pull();
  release();
  await first;
  expect(got).toEqual([1, 2]);
  expect(s.asked).toEqual([-1, 0, 2]);
});

test("a listener that throws does not lose the rest; a failed fetch is reported and the next pull goes on", async () => {
  const s = server();
  const errors: unknown[] = [];
  const got: unknown[] = [];
  let fail = false;
  const feed = createFeed({
    fetchPage: (after) => (fail ? Promise.reject(new Error("down")) : s.fetchPage(after)),
    dispatch: (e) => {
      if (e.data === 1) throw new Error("boom");
      got.push(e.data);
    },
    onError: (e) => errors.push(e),
  });
  await feed.pull();
  s.batches.push([{ name: "x", data: 1 }, { name: "x", data: 2 }]);
  await feed.pull();
  expect(got).toEqual([2]);
  fail = true;
  s.batches.push([{ name: "x", data: 3 }]);
  await feed.pull();
  fail = false;
  await feed.pull();
  expect(got).toEqual([2, 3]);
  expect(errors.map((e) => (e as Error).message)).toEqual(["boom", "down"]);
});

test("installed, a notice fetches the feed and each event reaches its own listeners", async () => {
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
    const page = await s.fetchPage(Number(new URL(url, "http://x").searchParams.get("after")));
    return { ok: true, json: async () => page };
  }) as unknown as typeof fetch;
  installEventFeed(fakeFetch);
  const got: unknown[] = [];
  (w.runtime as { EventsOnMultiple: (n: string, cb: (p: unknown) => void) => void }).EventsOnMultiple("task:updated", (p) => got.push(p));
  await new Promise((r) => setTimeout(r, 0));
  s.batches.push([{ name: "task:updated", data: { id: "t1" } }]);
  for (const cb of listeners[READY]) cb();
  await new Promise((r) => setTimeout(r, 0));
  expect(got).toEqual([{ id: "t1" }]);
  const asked = (names: string[]) => `&names=${encodeURIComponent(JSON.stringify(names))}`;
  // The first fetch went before task:updated had a listener; the second asks for it.
  expect(urls).toEqual([`/_jc/events?after=-1${asked([READY])}`, `/_jc/events?after=0${asked([READY, "task:updated"])}`]);
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

test("a fetch asks for the names listened to; a name gaining a listener meanwhile fetches the same cursor again", async () => {
  const s = server();
  const asked: (string[] | null)[] = [];
  const names = new Set<string>(["a"]);
  let added = 1;
  const listening = { names: () => [...names].sort(), added: () => added };
  const got: string[] = [];
  const feed = createFeed({
    listening,
    fetchPage: async (after, n) => {
      asked.push(n);
      const page = await s.fetchPage(after);
      return { ...page, events: page.events.filter((e) => n === null || n.includes(e.name)) };
    },
    dispatch: (e) => got.push(`${e.name}${e.data}`),
    onError: (e) => {
      throw e;
    },
  });
  await feed.pull();
  s.batches.push([{ name: "a", data: 1 }, { name: "b", data: 2 }]);
  const release = s.holdNext();
  const first = feed.pull();
  names.add("b"); // b's listener subscribes while the fetch is under way
  added++;
  release();
  await first;
  expect(got).toEqual(["a1", "b2"]);
  expect(asked).toEqual([["a"], ["a"], ["a", "b"]]);
  expect(s.asked).toEqual([-1, 0, 0]);
});

test("feedURL asks for every event without names, else for a JSON list", () => {
  expect(feedURL(3, null)).toBe("/_jc/events?after=3");
  expect(feedURL(3, ["x:y"])).toBe(`/_jc/events?after=3&names=${encodeURIComponent('["x:y"]')}`);
});
