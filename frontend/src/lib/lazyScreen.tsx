// lazyScreen is React.lazy for a screen whose chunk is fetched the first
// time it is shown (issue 20), plus preload(): once loaded, new instances
// render the component directly, without suspending. (Tests preload every
// screen, so they see screens synchronously as before.)

import { lazy, useState, type ComponentType } from "react";

export type LazyScreen<P> = ComponentType<P> & { preload(): Promise<void> };

const all: Array<() => Promise<void>> = [];

export function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>): LazyScreen<P> {
  let loaded: ComponentType<P> | null = null;
  const fetchOnce = () =>
    load().then((c) => {
      loaded = c;
      return c;
    });
  const Lazy = lazy(() => fetchOnce().then((c) => ({ default: c })));
  function Screen(props: P) {
    // Chosen once per instance: switching type later would remount it.
    const [C] = useState<ComponentType<P>>(() => loaded ?? (Lazy as unknown as ComponentType<P>));
    return <C {...props} />;
  }
  const preload = () => fetchOnce().then(() => undefined);
  all.push(preload);
  return Object.assign(Screen, { preload });
}

/** preloadScreens fetches every lazy screen, also those the loaded chunks declare. */
export async function preloadScreens(): Promise<void> {
  for (let n = -1; n !== all.length; ) {
    n = all.length;
    await Promise.all(all.map((p) => p()));
  }
}

type Idle = {
  requestIdleCallback?: (cb: () => void, opts?: { timeout: number }) => number;
  setTimeout: (cb: () => void, ms: number) => unknown;
};

/**
 * preloadWhenIdle fetches screens' chunks once the page is idle (after a
 * short timeout where requestIdleCallback is missing), so that the first
 * click on them does not wait for a download. The chunks stay out of the
 * first bundle.
 */
export function preloadWhenIdle(screens: Array<{ preload(): Promise<void> }>, win: Idle = window): void {
  const run = () => screens.forEach((s) => void s.preload().catch(() => {}));
  if (typeof win.requestIdleCallback === "function") win.requestIdleCallback(run, { timeout: 2000 });
  else win.setTimeout(run, 300);
}
