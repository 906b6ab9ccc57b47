import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// Build output goes to frontend/dist, which main.go embeds (//go:embed all:frontend/dist).
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
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
