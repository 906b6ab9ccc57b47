// generate builds a large transcript for the benchmark from the recorded
// fixtures: their stored messages are repeated with fresh ids (and tool ids)
// until there are n messages, with a user turn starting each repetition.

import { FIXTURES, storedMessages } from "../fixtures";
import type { AgentEvent, Message, Part } from "../timeline/types";

const MD_SAMPLE = [
  "Here is the plan:\n\n1. Read the config\n2. Update **the parser**\n3. Run the tests\n\n| file | change |\n|---|---|\n| a.ts | +3 |\n| b.ts | -1 |\n",
  "The function now looks like this:\n\n```ts\nexport function parse(input: string): Node[] {\n  const out: Node[] = [];\n  for (const line of input.split(\"\\n\")) out.push(toNode(line));\n  return out;\n}\n```\n",
  "All tests pass. `npm test` reports 42 passing.",
];

function retag(m: Message, rep: number, tsBase: number, idx: number): Message {
  const sfx = `~${rep}`;
  const parts: Part[] = (m.parts ?? []).map((p) => (p.toolId ? { ...p, toolId: p.toolId + sfx } : { ...p }));
  return {
    ...m,
    id: m.id + sfx,
    parts,
    parentToolUseId: m.parentToolUseId ? m.parentToolUseId + sfx : undefined,
    timestamp: new Date(tsBase + idx * 1500).toISOString(),
  };
}

/** bigTranscript returns n messages built from every recorded fixture. */
export function bigTranscript(n: number): Message[] {
  const base: Message[] = [];
  for (const fx of Object.values(FIXTURES)) base.push(...storedMessages(fx));
  const out: Message[] = [];
  const t0 = Date.parse("2026-01-01T00:00:00Z");
  let rep = 0;
  while (out.length < n) {
    out.push({
      id: `user~${rep}`,
      role: "user",
      parts: [{ type: "text", text: `Follow-up #${rep}: please continue with the next step and keep the tests green.` }],
      timestamp: new Date(t0 + out.length * 1500).toISOString(),
    });
    out.push({
      id: `md~${rep}`,
      role: "assistant",
      parts: [{ type: "text", text: MD_SAMPLE[rep % MD_SAMPLE.length] }],
      timestamp: new Date(t0 + out.length * 1500).toISOString(),
    });
    for (const m of base) {
      if (out.length >= n) break;
      out.push(retag(m, rep, t0, out.length));
    }
    rep++;
  }
  return out.slice(0, n);
}

/**
 * streamEvents yields the events of an assistant turn streamed word by word
 * (each event re-sends the whole message, as the normalizers do), with a
 * tool call whose state moves along.
 */
export function* streamEvents(id: string): Generator<AgentEvent> {
  const words = ("I will look at the failing test first, then fix the parser. " + MD_SAMPLE[0] + MD_SAMPLE[1]).split(/(\s+)/);
  let text = "";
  const ts = new Date().toISOString();
  let turn = 0;
  for (;;) {
    const mid = `${id}-${turn}`;
    text = "";
    for (const w of words) {
      text += w;
      yield { type: "message", message: { id: mid, role: "assistant", parts: [{ type: "text", text }], timestamp: ts } };
    }
    const toolId = `${mid}-tool`;
    const use: Part = { type: "tool-use", toolId, toolName: "Bash", kind: "execute", input: { command: "npm test" }, state: "running" };
    yield { type: "message", message: { id: mid, role: "assistant", parts: [{ type: "text", text }, use], timestamp: ts } };
    let out = "";
    for (let i = 0; i < 20; i++) {
      out += `\u001b[32m✓\u001b[0m test ${i} passed\n`;
      yield { type: "tool-state-update", messageId: mid, toolId, state: "running", result: out };
    }
    yield { type: "message", message: { id: `${mid}-r`, role: "user", parts: [{ type: "tool-result", toolId, content: out }], timestamp: new Date().toISOString() } };
    turn++;
  }
}
