import { feedURL, installEventFeed, RETRY_MS, startFeed, trackListeners, wakeURL, WAIT_MS, type EventsRuntime, type FeedAsk, type FeedEvent, type FeedPage } from "./feed";

/** server is a fake feed that long-polls as eventbatch.go does: batches
 * numbered from 1; a fetch is answered when events it asks for are after
 * its cursor (a first fetch, cursor -1, at once, with the cursor only), or
 * when a wake with a higher count than its own came. */
function server() {
  const batches: FeedEvent[][] = [];
  const asks: FeedAsk[] = [];
  let waiting: (() => void)[] = [];
  let woken = 0;
  let fail = false;
  const answer = (ask: FeedAsk): FeedPage => ({
    last: batches.length,
    gap: false,
    events: ask.after < 0 ? [] : batches.slice(ask.after).flat().filter((e) => !ask.names || ask.names.includes(e.name)),
  });
  const wakeAll = () => {
    const w = waiting;
    waiting = [];
    w.forEach((f) => f());
  };
  return {
    batches,
    asks,
    failNext: () => void (fail = true),
    waiting: () => waiting.length,
    push(...b: FeedEvent[][]) {
      batches.push(...b);
      wakeAll();
    },
    fetchPage: (ask: FeedAsk): Promise<FeedPage> => {
      asks.push(ask);
      if (fail) {
        fail = false;
        return Promise.reject(new Error("down"));
      }
      return new Promise((resolve) => {
        const attempt = () => {
          const page = answer(ask);
          if (ask.after < 0 || page.events.length > 0 || ask.v < woken) resolve(page);
          else waiting.push(attempt);
        };
        attempt();
      });
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

test("the first fetch only takes the cursor; each answer hands over its events in order and the next fetch waits from there", async () => {
  const s = server();
  s.batches.push([{ name: "old", data: 0 }]);
  const got: unknown[] = [];
  const feed = startFeed({ fetchPage: s.fetchPage, wake: s.wake, dispatch: (e) => got.push(e.data), onError: rethrow });
  await tick();
  expect(got).toEqual([]);
  expect(s.waiting()).toBe(1); // one fetch waits: nothing runs while nothing comes
  s.push([{ name: "a", data: 1 }, { name: "b", data: 2 }], [{ name: "a", data: 3 }]);
  await tick();
  expect(got).toEqual([1, 2, 3]);
  s.push([{ name: "a", data: 4 }]);
  await tick();
  expect(got).toEqual([1, 2, 3, 4]);
  expect(s.asks.map((a) => a.after)).toEqual([-1, 1, 3, 4]);
  feed.stop();
  s.push([{ name: "a", data: 5 }]);
  await feed.done;
  expect(got).toEqual([1, 2, 3, 4]); // stopped: the answer under way is not handed over
});

test("a listener that throws does not lose the rest; a failed fetch is reported and tried again after a pause", async () => {
  const s = server();
  const errors: string[] = [];
  const got: unknown[] = [];
  const pauses: number[] = [];
  const feed = startFeed({
    fetchPage: s.fetchPage,
    wake: s.wake,
    dispatch: (e) => {
      if (e.data === 1) throw new Error("boom");
      got.push(e.data);
    },
    onError: (e) => errors.push((e as Error).message),
    sleep: async (ms) => void pauses.push(ms),
  });
  await tick();
  s.failNext();
  s.push([{ name: "x", data: 1 }, { name: "x", data: 2 }]);
  await tick();
  expect(got).toEqual([2]);
  s.push([{ name: "x", data: 3 }]); // the fetch after [1 2] fails, the next takes 3
  await tick();
  await tick();
  expect(got).toEqual([2, 3]);
  expect(errors).toEqual(["boom", "down"]);
  expect(pauses).toEqual([RETRY_MS]);
  feed.stop();
});

test("a name gaining a listener wakes the waiting fetch, which asks again from the same cursor with the new names", async () => {
  const s = server();
  const names = new Set<string>(["a"]);
  let added = 1;
  const listening = { names: () => [...names].sort(), added: () => added };
  const got: string[] = [];
  const feed = startFeed({ listening, fetchPage: s.fetchPage, wake: s.wake, dispatch: (e) => got.push(`${e.name}${e.data}`), onError: rethrow });
  await tick();
  s.push([{ name: "b", data: 1 }]); // not asked for: the fetch waits on
  await tick();
  expect(got).toEqual([]);
  names.add("b"); // b's listener subscribes while the fetch waits
  added++;
  feed.added();
  await tick();
  await tick();
  expect(got).toEqual(["b1"]);
  expect(s.asks.map((a) => [a.after, a.names, a.v])).toEqual([
    [-1, ["a"], 1],
    [0, ["a"], 1],
    [0, ["a", "b"], 2],
    [1, ["a", "b"], 2],
  ]);
  feed.stop();
});

test("installed, a waiting fetch of the feed hands each event to its own listeners; a new name wakes it", async () => {
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
    const page = await s.fetchPage({ after: Number(q.get("after")), names: names ? JSON.parse(names) : null, v: Number(q.get("v")) });
    return { ok: true, json: async () => page };
  }) as unknown as typeof fetch;
  const stop = installEventFeed(fakeFetch);
  await tick();
  const got: unknown[] = [];
  (w.runtime as { EventsOnMultiple: (n: string, cb: (p: unknown) => void) => void }).EventsOnMultiple("task:updated", (p) => got.push(p));
  await tick();
  s.push([{ name: "task:updated", data: { id: "t1" } }]);
  await tick();
  await tick();
  expect(got).toEqual([{ id: "t1" }]);
  const page = new URL(urls[0], "http://x").searchParams.get("page")!;
  expect(page).toMatch(/^[a-z0-9]{8,}$/);
  const names = (n: string[]) => `&names=${encodeURIComponent(JSON.stringify(n))}`;
  const wait = (v: number) => `&wait=${WAIT_MS}&page=${page}&v=${v}`;
  expect(urls).toEqual([
    `/_jc/events?after=-1${names([])}${wait(0)}`,
    `/_jc/events?after=0${names([])}${wait(0)}`, // woken: task:updated gained a listener
    `/_jc/events?wake=${page}&v=1`,
    `/_jc/events?after=0${names(["task:updated"])}${wait(1)}`,
    `/_jc/events?after=1${names(["task:updated"])}${wait(1)}`,
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

test("feedURL asks for every event without names, else for a JSON list; a waiting fetch says its page and count", () => {
  expect(feedURL({ after: 3, names: null, v: 0 })).toBe("/_jc/events?after=3");
  expect(feedURL({ after: 3, names: ["x:y"], v: 0 })).toBe(`/_jc/events?after=3&names=${encodeURIComponent('["x:y"]')}`);
  expect(feedURL({ after: 3, names: null, v: 2 }, { ms: 500, page: "p 1" })).toBe("/_jc/events?after=3&wait=500&page=p%201&v=2");
  expect(wakeURL("p 1", 2)).toBe("/_jc/events?wake=p%201&v=2");
});
