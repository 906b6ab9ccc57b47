// "app:navigate": a request to show a screen in every window of the app.
// The Go side may send it; in Wails dev mode an event emitted by one window
// (Chromium on the dev server) reaches the others, which is how
// e2e/webkit-shots.mjs drives the REAL WebKitGTK window to each screen
// (issue 23). Only the fields below are honoured: a screen, a project, the
// theme, the add-project dialog, Escape, pressing one named button, and a
// reload.

import type { AppStore, Screen, Theme } from "../state/store";

export const NAVIGATE_EVENT = "app:navigate";

export interface NavigateRequest {
  /** Reload the window (it then loads every project afresh); the rest of the request is ignored. */
  reload?: boolean;
  /** Close dialogs and palettes first (as the Escape key would). */
  escape?: boolean;
  projectId?: string;
  screen?: Screen;
  theme?: Theme;
  addProject?: boolean;
  /** Press the first enabled button whose text is exactly this (a pane tab such as "Diff"). */
  press?: string;
}

const THEMES: Theme[] = ["light", "dark", "system"];

/** applyNavigate performs a request on the store and the document; it ignores what it does not know. */
export function applyNavigate(req: NavigateRequest | null | undefined, store: AppStore, doc: Document = document): void {
  if (!req || typeof req !== "object") return;
  if (req.reload) {
    doc.defaultView?.location.reload();
    return;
  }
  const s = store.getState();
  if (req.escape) {
    s.setAddProjectOpen(false);
    doc.activeElement?.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
  }
  if (req.theme && THEMES.includes(req.theme)) s.setTheme(req.theme);
  if (typeof req.projectId === "string" && req.projectId) s.selectProject(req.projectId);
  if (req.screen && typeof req.screen.kind === "string") s.openScreen(req.screen);
  if (req.addProject) s.setAddProjectOpen(true);
  if (typeof req.press === "string" && req.press) pressLater(req.press, doc);
}

/** pressLater clicks the named button once it is rendered (screens load lazily), for up to 3 s. */
function pressLater(text: string, doc: Document, tries = 30): void {
  const b = [...doc.querySelectorAll("button")].find((x) => x.textContent?.trim() === text && !x.disabled);
  if (b) b.click();
  else if (tries > 0) setTimeout(() => pressLater(text, doc, tries - 1), 100);
}
