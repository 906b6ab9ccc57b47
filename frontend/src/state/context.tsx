import { createContext, useContext, type ReactNode } from "react";
import { useStore } from "zustand";
import type { AppState, AppStore } from "./store";

const StoreContext = createContext<AppStore | null>(null);

export function StoreProvider({ store, children }: { store: AppStore; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

/** useOptionalAppStore is the store, or null outside a StoreProvider (the task view alone, in tests and the perf page). */
export function useOptionalAppStore(): AppStore | null {
  return useContext(StoreContext);
}

/** useAppStore returns the raw store (for actions outside render). */
export function useAppStore(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error("useApp outside StoreProvider");
  return store;
}

/** useApp selects from the app store; the component re-renders when the selection changes. */
export function useApp<T>(selector: (s: AppState) => T): T {
  return useStore(useAppStore(), selector);
}
