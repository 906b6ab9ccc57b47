// Debian's Chromium driven by playwright-core (no browser download here).
// playwright's launch() always uses a fresh temporary --user-data-dir.

import { chromium } from "playwright-core";
import { existsSync } from "node:fs";

export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchBrowser() {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}
