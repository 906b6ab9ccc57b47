// CompareAgentsPicker: "Run on several agents" in the new-task form — 2 to 5
// backends (a backend may repeat with another model).

import type { BackendInfo } from "../../bridge/types";
import { Button } from "../../lib/ui";
import type { CompareAgent } from "./api";
import { addAgent, MAX_AGENTS, MIN_AGENTS } from "./reducers";
import "./compare.css";

export function CompareAgentsPicker({ agents, backends, onChange }: { agents: CompareAgent[]; backends: BackendInfo[]; onChange(a: CompareAgent[]): void }) {
  const names = backends.map((b) => b.name);
  const set = (i: number, patch: Partial<CompareAgent>) => onChange(agents.map((a, j) => (j === i ? { ...a, ...patch } : a)));
  return (
    <div className="jc-compare__agents" data-testid="compare-agents">
      {agents.map((a, i) => (
        <div key={i} className="jc-compare__agent">
          <select className="jc-input" aria-label={`Agent ${i + 1}`} value={a.backend} onChange={(e) => set(i, { backend: e.target.value })}>
            {backends.map((b) => (
              <option key={b.name} value={b.name}>
                {b.displayName || b.name}
              </option>
            ))}
          </select>
          <input
            className="jc-input jc-input--mono"
            aria-label={`Model ${i + 1}`}
            placeholder="default model"
            value={a.model}
            spellCheck={false}
            onChange={(e) => set(i, { model: e.target.value })}
          />
          <Button size="sm" variant="ghost" disabled={agents.length <= MIN_AGENTS} onClick={() => onChange(agents.filter((_, j) => j !== i))}>
            Remove
          </Button>
        </div>
      ))}
      <div>
        <Button size="sm" disabled={agents.length >= MAX_AGENTS} onClick={() => onChange(addAgent(agents, names))}>
          Add an agent
        </Button>
      </div>
    </div>
  );
}
