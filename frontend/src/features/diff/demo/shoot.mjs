// Browser test of the diff view (Chromium via playwright-core, no browser
// download) over the fake GitApi, plus screenshots:
//
//   node src/features/diff/demo/shoot.mjs [outDir]
//
// Starts Vite on a free port, opens the demo page, checks the tree, both
// diff modes, live refresh and the commit flow, and writes
// diff-unified.png, diff-split.png and diff-dark.png to outDir
// (default: test-results/diff).

import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { createServer } from "vite";
import { chromium } from "playwright-core";

const FRONTEND = resolve(new URL("../../../..", import.meta.url).pathname);
const out = resolve(process.argv[2] ?? resolve(FRONTEND, "test-results/diff"));
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

function check(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

const server = await createServer({ root: FRONTEND, configFile: resolve(FRONTEND, "vite.config.ts"), server: { port: 0, host: "127.0.0.1" }, logLevel: "warn" });
await server.listen();
const base = server.resolvedUrls.local[0].replace(/\/$/, "");
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
let failed = false;
try {
  mkdirSync(out, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  await page.goto(`${base}/src/features/diff/demo/index.html?poll=300`);

  const tree = page.getByRole("tree", { name: "Changed files" });
  await tree.getByText("login.ts").waitFor();
  check((await page.getByTestId("diff-totals").innerText()).replace(/\s+/g, " ") === "+8 −4 in 6 files", "totals");
  check((await tree.getByRole("treeitem").count()) === 11, "tree rows");

  await tree.getByText("login.ts").click();
  await page.getByTestId("diff-unified").waitFor();
  check((await page.getByTestId("diff-unified").locator("tr.is-add").count()) === 3, "3 added lines");
  await page.screenshot({ path: resolve(out, "diff-unified.png") });

  await page.getByRole("button", { name: "Side by side" }).click();
  const split = page.getByTestId("diff-split");
  await split.waitFor();
  check((await split.locator("td.is-del").count()) === 1 && (await split.locator("td.is-add").count()) === 3, "split cells");
  await page.screenshot({ path: resolve(out, "diff-split.png") });

  // The agent writes a new file: the poll picks it up.
  await page.evaluate(() => {
    const api = window.__gitApi;
    api.setFiles([
      { path: "src/auth/token.ts", status: "added", newMode: "100644", binary: false, added: 2, removed: 0, patch: "@@ -0,0 +1,2 @@\n+export const TTL = 3600;\n+export const REFRESH = 600;\n" },
    ]);
  });
  await tree.getByText("token.ts").waitFor({ timeout: 5000 });
  check((await page.getByTestId("diff-totals").innerText()).replace(/\s+/g, " ") === "+2 −0 in 1 file", "totals after write");

  // Commit with an edited message, then merge becomes possible.
  const msg = page.getByLabel("Commit message");
  await msg.fill("Add token constants");
  await page.getByRole("button", { name: "Commit all changes" }).click();
  await page.getByText(/Committed cccccccc/).waitFor();
  const commit = await page.evaluate(() => window.__gitApi.calls.find((c) => c.method === "commit"));
  check(commit && commit.args[1] === "Add token constants", `commit message sent: ${JSON.stringify(commit)}`);
  await page.getByRole("button", { name: "Merge into main" }).waitFor();
  check(await page.getByRole("button", { name: "Merge into main" }).isEnabled(), "merge enabled after commit");

  const dark = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await dark.goto(`${base}/src/features/diff/demo/index.html?theme=dark&poll=0`);
  await dark.getByRole("tree", { name: "Changed files" }).getByText("login.ts").click();
  await dark.getByTestId("diff-unified").waitFor();
  await dark.screenshot({ path: resolve(out, "diff-dark.png") });

  check(errors.length === 0, `page errors: ${errors.join("; ")}`);
  console.log(`ok  diff view in Chromium; screenshots in ${out}`);
} catch (err) {
  failed = true;
  console.error(`FAIL ${err.stack || err}`);
} finally {
  await browser.close();
  await server.close();
}
process.exit(failed ? 1 : 0);
