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
  },
});
