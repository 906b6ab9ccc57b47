import { defineConfig } from "vitest/config";
import type { Plugin } from "vite";
import react from "@vitejs/plugin-react";
import { gzipSync, constants } from "node:zlib";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

// Build output goes to frontend/dist: development builds embed it and
// `-assetdir` serves it from disk. Production builds embed frontend/distgz
// instead (main_assets_prod.go): the same files gzipped, which the app
// inflates when the page asks for one (backend/gzfs). The binary is
// resident in memory in full, and 1.3 MB of assets are 0.4 MB gzipped
// (issue 20).
const GZ_DIR = "distgz";

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

// gzipDist writes frontend/distgz/NAME.gz for every file of the main
// build's frontend/dist (other builds, e.g. the perf page's, are left
// alone); what was there before goes, but the committed .gitkeep.
export function gzipDist(): Plugin {
  let outDir = "";
  let root = "";
  return {
    name: "jc-gzip-dist",
    apply: "build",
    configResolved(c) {
      root = c.root;
      outDir = resolve(c.root, c.build.outDir);
    },
    closeBundle() {
      if (outDir !== resolve(root, "dist")) return;
      const gzDir = resolve(root, GZ_DIR);
      mkdirSync(gzDir, { recursive: true });
      for (const e of readdirSync(gzDir, { withFileTypes: true })) {
        if (e.name !== ".gitkeep") rmSync(join(gzDir, e.name), { recursive: true, force: true });
      }
      for (const f of files(outDir)) {
        const rel = relative(outDir, f);
        if (rel === ".gitkeep") continue;
        const out = join(gzDir, rel + ".gz");
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, gzipSync(readFileSync(f), { level: constants.Z_BEST_COMPRESSION }));
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), gzipDist()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    // Non-ASCII characters escaped (\u2026): WebKit keeps a script's source
    // for as long as its code lives, as 8-bit text when every character is
    // Latin-1, else as 16-bit text. One "…" in the main chunk doubled the
    // 350 KB it keeps (issue 20, idle memory).
    rolldownOptions: { output: { charset: "ascii" } },
  },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    css: false,
    // CI and this VM are 2 shared cores: a test that types a sentence key by
    // key, or the setup that loads every lazy screen, can take longer than
    // vitest's 5 s / 10 s defaults while nothing is wrong. Assertions wait
    // for what they check; these bound a hang, not a speed.
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
