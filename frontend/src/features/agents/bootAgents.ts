// The Agents page's last known state as index.html carries it: the Go side
// fills #jc-snapshot with {"agents": [...]} (backend/bootpage, the same
// views as AgentService.LastKnown, secrets masked), so the first visit
// paints in its first render, without a round trip. Once a list() of this
// page load has answered, the localStorage copy is newer than the
// snapshot: supersedeBootAgents marks the snapshot so.

import type { AgentView } from "./api";

const SUPERSEDED = "data-agents-superseded";

/** bootAgents returns the inlined agents, or null (none, unreadable, or superseded). */
export function bootAgents(doc: Document = document): AgentView[] | null {
  const el = doc.getElementById("jc-snapshot");
  if (!el || el.hasAttribute(SUPERSEDED)) return null;
  try {
    const v = (JSON.parse(el.textContent || "{}") as { agents?: unknown }).agents;
    return Array.isArray(v) && v.length > 0 ? (v as AgentView[]) : null;
  } catch {
    return null;
  }
}

/** supersedeBootAgents says a newer list than the snapshot's is known (and kept in localStorage). */
export function supersedeBootAgents(doc: Document = document): void {
  doc.getElementById("jc-snapshot")?.setAttribute(SUPERSEDED, "true");
}
