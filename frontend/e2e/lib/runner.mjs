// A small test runner for the e2e suites: test files call test(name, fn);
// run() executes them in order with a timeout each, saves a screenshot of a
// failing page, and returns the counts.

import { mkdirSync } from "node:fs";
import { join } from "node:path";

const tests = [];
let currentFile = "";

/** test registers one e2e test. fn receives the harness context. */
export function test(name, fn, { timeoutMs = 60000 } = {}) {
  tests.push({ name, fn, timeoutMs, file: currentFile });
}

export function setCurrentFile(f) {
  currentFile = f;
}

export function registered() {
  return tests;
}

function withTimeout(p, ms, what) {
  let t;
  return Promise.race([
    p.finally(() => clearTimeout(t)),
    new Promise((_, fail) => {
      t = setTimeout(() => fail(new Error(`${what}: timed out after ${ms} ms`)), ms);
    }),
  ]);
}

/**
 * run executes the tests matching filter. makeContext(test) returns a fresh
 * context ({ page, ... }) and a dispose function.
 */
export async function run({ filter, makeContext, resultsDir, log = console.log }) {
  let passed = 0;
  let failed = 0;
  const failures = [];
  for (const t of tests) {
    if (filter && !`${t.file} ${t.name}`.includes(filter)) continue;
    const started = Date.now();
    const { ctx, dispose } = await makeContext(t);
    try {
      await withTimeout(Promise.resolve().then(() => t.fn(ctx)), t.timeoutMs, t.name);
      if (ctx.pageErrors?.length) throw new Error(`uncaught errors in the page: ${ctx.pageErrors.map(String).join("; ")}`);
      passed++;
      log(`  ok    ${t.name} (${Date.now() - started} ms)`);
    } catch (err) {
      failed++;
      failures.push({ test: t, err });
      log(`  FAIL  ${t.name} (${Date.now() - started} ms)`);
      log(String(err?.stack || err).replace(/^/gm, "        "));
      if (ctx.page && resultsDir) {
        mkdirSync(resultsDir, { recursive: true });
        const file = join(resultsDir, `${t.name.replace(/[^a-z0-9]+/gi, "-")}.png`);
        await ctx.page.screenshot({ path: file, fullPage: true }).catch(() => {});
        log(`        screenshot: ${file}`);
      }
    } finally {
      await dispose();
    }
  }
  return { passed, failed, failures };
}

/** expect-style helpers that throw with a clear message. */
export function assert(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

export function assertEqual(got, want, msg) {
  if (got !== want) throw new Error(`${msg}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}
