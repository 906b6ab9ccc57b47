// columns decides which of the shell's list columns show: all (projects and
// tasks), tasks only, or none (the main pane takes the window). Below a
// width the default collapses (projects under 1280 px, both under 1000 px);
// the user toggles with the rail/sidebar button or Ctrl+B (Cmd+B), which
// cycles all → tasks → none → all. A user's choice holds until the window
// crosses a width threshold again.

import { useEffect, useSyncExternalStore } from "react";

export type Columns = "all" | "tasks" | "none";

/** defaultColumns is what a window of this width shows by default. */
export function defaultColumns(width: number): Columns {
  if (width >= 1280) return "all";
  if (width >= 1000) return "tasks";
  return "none";
}

/** nextColumns is the toggle's cycle. */
export function nextColumns(c: Columns): Columns {
  return c === "all" ? "tasks" : c === "tasks" ? "none" : "all";
}

let current: Columns = typeof window === "undefined" ? "all" : defaultColumns(window.innerWidth);
let band: Columns = current;
const subs = new Set<() => void>();

function set(c: Columns) {
  if (c === current) return;
  current = c;
  for (const f of subs) f();
}

export function toggleColumns(): void {
  set(nextColumns(current));
}

function subscribe(f: () => void) {
  subs.add(f);
  return () => subs.delete(f);
}

/** useColumns returns the columns shown and keeps them in step with the window's width and Ctrl+B. */
export function useColumns(): Columns {
  useEffect(() => {
    const onResize = () => {
      const d = defaultColumns(window.innerWidth);
      if (d !== band) {
        band = d;
        set(d);
      }
    };
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "b") {
        e.preventDefault();
        toggleColumns();
      }
    };
    window.addEventListener("resize", onResize);
    window.addEventListener("keydown", onKey);
    onResize();
    return () => {
      window.removeEventListener("resize", onResize);
      window.removeEventListener("keydown", onKey);
    };
  }, []);
  return useSyncExternalStore(subscribe, () => current);
}
