import "@testing-library/jest-dom/vitest";
import { cleanup } from "@testing-library/react";
import { afterEach, beforeAll } from "vitest";
import { preloadScreens } from "../lib/lazyScreen";
import "../screens";

afterEach(() => cleanup());

// Screens are chunks loaded on demand in the app (issue 20); tests see them at once.
beforeAll(() => preloadScreens());

// jsdom has no layout: give elements a viewport-sized client box so
// virtualized lists (@tanstack/react-virtual reads clientHeight) render rows.
Object.defineProperty(HTMLElement.prototype, "clientHeight", { configurable: true, get: () => 800 });
Object.defineProperty(HTMLElement.prototype, "clientWidth", { configurable: true, get: () => 1000 });
