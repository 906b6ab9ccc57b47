// The one way the frontend reaches Go: every call goes through a generated
// binding (./wailsjs/go/services/*, from `wails generate module`), wrapped
// here so that it rejects clearly when its service is not bound (a plain
// browser, tests, an older backend); every subscription goes through the
// generated runtime (./wailsjs/runtime).

import { EventsOn, WindowSetTitle } from "./wailsjs/runtime/runtime";

type Services = Record<string, Record<string, unknown> | undefined>;

/** bound wraps a generated binding; name is "Service.Method". */
export function bound<A extends unknown[], R>(fn: (...a: A) => Promise<R>, name: string): (...a: A) => Promise<R> {
  const [service, method] = name.split(".");
  return (...a: A) => {
    const services = (window as unknown as { go?: { services?: Services } }).go?.services;
    if (typeof services?.[service]?.[method] !== "function") {
      return Promise.reject(new Error(`${name} is not available (no Wails backend)`));
    }
    return fn(...a);
  };
}

/** call invokes a generated binding and types its answer as R, a
 * hand-written view of the same JSON (the generated model classes carry
 * methods plain JSON objects lack; models.test.ts checks the two agree).
 * Arguments pass through as JSON, as the binding would send them. */
export function call<R>(fn: (...a: never[]) => Promise<unknown>, name: string, ...args: unknown[]): Promise<R> {
  return bound(fn as unknown as (...a: unknown[]) => Promise<unknown>, name)(...args) as Promise<R>;
}

/** onEvent subscribes to a Go event (its first payload); the returned
 * function unsubscribes. Without the Wails runtime it does nothing. */
export function onEvent<T>(name: string, cb: (payload: T) => void): () => void {
  if (!(window as unknown as { runtime?: unknown }).runtime) return () => {};
  return EventsOn(name, (...data: unknown[]) => cb(data[0] as T));
}

/** setWindowTitle sets the document's title and, in Wails, the window's
 * (the inbox count; Go sets the window's too when the inbox changes). */
export function setWindowTitle(title: string): void {
  document.title = title;
  if (!(window as unknown as { runtime?: unknown }).runtime) return;
  try {
    WindowSetTitle(title);
  } catch {
    // a runtime without windows: the document title is enough
  }
}
