import { describe, expect, it } from "vitest";
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderEvents } from "./testing";
import { FIXTURES } from "../fixtures";
import type { AgentEvent, Message, Part } from "../timeline/types";
import { mcpTool } from "./tools/GenericTool";

const ts = "2026-01-01T00:00:00Z";
const m = (id: string, parts: Part[], extra: Partial<Message> = {}): AgentEvent => ({
  type: "message",
  message: { id, role: "assistant", parts, timestamp: ts, ...extra },
});

function card(container: HTMLElement, toolId: string): HTMLElement {
  const el = container.querySelector<HTMLElement>(`[data-tool-id="${toolId}"]`);
  if (!el) throw new Error(`no card for ${toolId}`);
  return el;
}

function open(el: HTMLElement) {
  const header = el.querySelector<HTMLElement>(".jc-tool__header")!;
  if (header.getAttribute("aria-expanded") !== "true") fireEvent.click(header);
}

describe("text", () => {
  it("renders GFM markdown with tables and highlighted code blocks with a copy button", async () => {
    const text = "Intro **bold**\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```ts\nconst x: number = 1;\n```\n";
    const { container } = renderEvents([m("a", [{ type: "text", text }])]);
    expect(container.querySelector("table")).not.toBeNull();
    expect(screen.getByText("bold").tagName).toBe("STRONG");
    const block = container.querySelector(".jc-codeblock")!;
    expect(block.querySelector(".jc-codeblock__lang")!.textContent).toBe("ts");
    // The language's chunk loads on first use (issue 20): highlighted once it arrives.
    await waitFor(() => expect(block.querySelector(".hljs-keyword")?.textContent).toBe("const"));
    expect(within(block as HTMLElement).getByRole("button", { name: "Copy" })).toBeInTheDocument();
  });

  it("shows user text as plain text in a bubble", () => {
    const { container } = renderEvents([m("u", [{ type: "text", text: "do **it**" }], { role: "user" })]);
    expect(container.querySelector(".jc-msg--user")!.textContent).toBe("do **it**");
  });
});

describe("reasoning", () => {
  it("is collapsed by default with its length and expands on click", () => {
    renderEvents([m("a", [{ type: "reasoning", text: "think about the problem carefully" }])]);
    const btn = screen.getByRole("button", { name: /Thinking/ });
    expect(btn).toHaveAttribute("aria-expanded", "false");
    expect(btn.textContent).toContain("33 chars · 5 words");
    expect(screen.queryByText("think about the problem carefully")).toBeNull();
    fireEvent.click(btn);
    expect(screen.getByText("think about the problem carefully")).toBeInTheDocument();
  });
});

describe("tool cards from a recorded Claude run", () => {
  const events = FIXTURES["claude-main-print-bypass"].events;

  it("match each tool use to its result and show the live state", () => {
    const { container } = renderEvents(events);
    const cards = container.querySelectorAll(".jc-tool");
    expect(cards).toHaveLength(2);
    for (const c of cards) expect(c.getAttribute("data-state")).toBe("completed");
    const bash = container.querySelector<HTMLElement>('[data-tool-kind="execute"]')!;
    expect(bash.textContent).toContain("Ran");
    expect(bash.textContent).toContain("ls");
    open(bash);
    expect(bash.querySelector(".jc-output__pre")!.textContent).toBe("hello.txt");
    expect(bash.querySelector(".jc-tool-command__exit")!.textContent).toBe("exit 0");
    // elapsed time between the tool use and its result
    expect(bash.querySelector(".jc-tool__elapsed")!.textContent).toMatch(/ms|s$/);
  });

  it("renders a created file as an all-added diff", () => {
    const { container } = renderEvents(events);
    const write = container.querySelector<HTMLElement>('[data-tool-kind="edit"]')!;
    expect(write.textContent).toContain("Created");
    expect(write.querySelector(".jc-diffstat")!.textContent).toContain("+1");
    expect(write.querySelectorAll(".jc-diff__line.is-add")).toHaveLength(1);
    expect(write.querySelector(".jc-diff__line.is-add")!.textContent).toContain("Hello from the fake model!");
  });

  it("summarizes the result with duration, cost, tokens and per-model usage", () => {
    const { container } = renderEvents(events);
    const sum = screen.getByTestId("result-summary");
    expect(sum.textContent).toContain("Done");
    expect(sum.textContent).toContain("1.0s");
    expect(sum.textContent).toContain("$0.02");
    expect(sum.textContent).toContain("4.2k in · 126 out");
    fireEvent.click(within(sum).getByRole("button"));
    const table = container.querySelector(".jc-result__models")!;
    expect(table.textContent).toContain("claude-opus-5-5");
    // one result summary: the complete event does not add a second one
    expect(screen.getAllByTestId("result-summary")).toHaveLength(1);
  });
});

describe("command output", () => {
  it("colors ANSI output, shows a failing exit code and collapses long output", () => {
    const out = "Exit code 2\n" + "\u001b[31mred line\u001b[0m\n" + Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
    const { container } = renderEvents([
      m("a", [{ type: "tool-use", toolId: "t", toolName: "Bash", kind: "execute", input: { command: "make test" } }]),
      m("r", [{ type: "tool-result", toolId: "t", content: out, isError: true }], { role: "user" }),
    ]);
    const c = card(container, "t");
    expect(c.getAttribute("data-state")).toBe("error");
    // errors start open
    expect(c.querySelector(".ansi-red-fg")!.textContent).toBe("red line");
    expect(c.querySelector(".jc-tool-command__exit")!.textContent).toBe("exit 2");
    expect(c.querySelector(".jc-output__pre")!.textContent).not.toContain("line 29");
    fireEvent.click(within(c).getByRole("button", { name: /Show all 31 lines/ }));
    expect(c.querySelector(".jc-output__pre")!.textContent).toContain("line 29");
  });

  it("shows a running tool with a live elapsed time and partial output", () => {
    const { container } = renderEvents([
      m("a", [{ type: "tool-use", toolId: "t", toolName: "bash", kind: "execute", input: { command: "sleep 5" }, state: "pending" }], { timestamp: new Date(Date.now() - 3000).toISOString() }),
      { type: "tool-state-update", messageId: "a", toolId: "t", state: "running", result: "tick" },
    ]);
    const c = card(container, "t");
    expect(c.getAttribute("data-state")).toBe("running");
    expect(c.querySelector(".jc-tool__elapsed")!.textContent).toMatch(/^[34]\.\ds$/);
    expect(c.querySelector(".jc-output__pre")!.textContent).toBe("tick");
  });
});

describe("read, edit, search, fetch, generic", () => {
  it("reads a file with line numbers", () => {
    const { container } = renderEvents([
      m("a", [{ type: "tool-use", toolId: "t", toolName: "Read", kind: "read", input: { file_path: "/p/a.ts" } }]),
      m("r", [{ type: "tool-result", toolId: "t", content: "     1→const a = 1;\n     2→export {a};\n" }], { role: "user" }),
    ]);
    const c = card(container, "t");
    expect(c.textContent).toContain("/p/a.ts");
    expect(c.textContent).toContain("(2 lines)");
    open(c);
    const nos = [...c.querySelectorAll(".jc-code-lines__no")].map((n) => n.textContent);
    expect(nos).toEqual(["1", "2"]);
    expect(c.querySelector(".jc-code-lines__src")!.textContent).toBe("const a = 1;");
  });

  it("diffs an edit from old/new strings when there is no structured patch", () => {
    const { container } = renderEvents([
      m("a", [{ type: "tool-use", toolId: "t", toolName: "edit", kind: "edit", input: { filePath: "/p/x.go", oldString: "a\nb\n", newString: "a\nc\n" } }]),
    ]);
    const c = card(container, "t");
    expect(c.querySelector(".jc-diff__line.is-del")!.textContent).toContain("b");
    expect(c.querySelector(".jc-diff__line.is-add")!.textContent).toContain("c");
  });

  it("prefers the structured patch of the result", () => {
    const { container } = renderEvents([
      m("a", [{ type: "tool-use", toolId: "t", toolName: "Edit", kind: "edit", input: { file_path: "/p/x", old_string: "zzz", new_string: "yyy" } }]),
      m("r", [{ type: "tool-result", toolId: "t", content: "ok", structuredResult: { kind: "write", filePath: "/p/x", operation: "update", structuredPatch: [{ oldStart: 10, oldLines: 1, newStart: 10, newLines: 2, lines: ["-old", "+new", "+more"] }] } }], { role: "user" }),
    ]);
    const c = card(container, "t");
    expect(c.querySelector(".jc-diff__header")!.textContent).toContain("-10,1 +10,2");
    expect(c.querySelectorAll(".jc-diff__line.is-add")).toHaveLength(2);
    expect(c.textContent).not.toContain("zzz");
    expect(c.textContent).toContain("Edited");
  });

  it("names MCP tools by server and tool, with their message", () => {
    const { container } = renderEvents([
      m("a", [
        { type: "tool-use", toolId: "p", toolName: "mcp__jean-claude__report_progress", kind: "other", input: { message: "Tests pass" } },
        { type: "tool-use", toolId: "o", toolName: "jean-claude_ask_user", kind: "other", input: { question: "Which one?" } },
      ]),
    ]);
    const p = card(container, "p");
    expect(p.textContent).toContain("Jean-Claude");
    expect(p.textContent).toContain("report progress");
    expect(p.textContent).toContain("Tests pass");
    expect(p.textContent).not.toContain("mcp__");
    expect(card(container, "o").textContent).toContain("ask user — Which one?");
    expect(mcpTool("mcp__github__create_issue")).toEqual({ server: "github", tool: "create_issue" });
    expect(mcpTool("Bash")).toBeNull();
  });

  it("counts search results and fetches pages", () => {
    const { container } = renderEvents([
      m("a", [
        { type: "tool-use", toolId: "s", toolName: "Grep", kind: "search", input: { pattern: "TODO", path: "src" } },
        { type: "tool-use", toolId: "f", toolName: "WebFetch", kind: "fetch", input: { url: "https://example.com", prompt: "summarize" } },
        { type: "tool-use", toolId: "g", toolName: "mcp__thing", kind: "other", input: { x: 1 } },
      ]),
      m("r", [
        { type: "tool-result", toolId: "s", content: "Found 3 files\na.ts\nb.ts\nc.ts" },
        { type: "tool-result", toolId: "f", content: "# Example\nA page." },
        { type: "tool-result", toolId: "g", content: "generic out" },
      ], { role: "user" }),
    ]);
    expect(card(container, "s").textContent).toContain("(3 results)");
    const f = card(container, "f");
    expect(f.textContent).toContain("Fetched");
    open(f);
    expect(f.querySelector("h1")!.textContent).toBe("Example");
    const g = card(container, "g");
    expect(g.textContent).toContain("mcp__thing");
    open(g);
    expect(g.textContent).toContain('"x": 1');
    expect(g.textContent).toContain("generic out");
  });
});

describe("todo list", () => {
  it("shows the recorded TodoWrite list", () => {
    const { container } = renderEvents(FIXTURES["claude-todo-print"].events);
    const c = container.querySelector<HTMLElement>('[data-tool-kind="todo"]')!;
    expect(c.textContent).toContain("1/3 completed");
    const items = [...c.querySelectorAll(".jc-todo")];
    expect(items.map((i) => i.className.match(/is-(completed|in_progress|pending)/)![1])).toEqual(["completed", "in_progress", "pending"]);
    // in-progress items show their active form
    expect(items[1].textContent).toContain("Listing the directory");
  });

  it("highlights what changed since the previous list", () => {
    const { container } = renderEvents([
      m("a", [{ type: "tool-use", toolId: "t", toolName: "TodoWrite", kind: "todo", input: {} }]),
      m("r", [{
        type: "tool-result", toolId: "t", content: "ok", structuredResult: {
          kind: "todo",
          oldTodos: [{ content: "A", status: "in_progress" }, { content: "B", status: "pending" }],
          newTodos: [{ content: "A", status: "completed" }, { content: "B", status: "pending" }, { content: "C", status: "pending" }],
        },
      }], { role: "user" }),
    ]);
    const items = [...card(container, "t").querySelectorAll(".jc-todo")];
    expect(items.map((i) => i.classList.contains("is-changed"))).toEqual([true, false, true]);
    expect(items[2].textContent).toContain("new");
  });
});

describe("recorded synthetic Claude run (sub-agents, skills, compaction, status)", () => {
  const events = FIXTURES["claude-synthetic"].events;

  it("groups sub-agent messages under the Task card", () => {
    const { container } = renderEvents(events);
    const task = card(container, "toolu_task");
    expect(task.getAttribute("data-tool-kind")).toBe("sub-agent");
    expect(task.textContent).toContain("1 tool call");
    open(task);
    const inner = task.querySelector<HTMLElement>('[data-tool-id="toolu_glob"]');
    expect(inner).not.toBeNull();
    expect(inner!.getAttribute("data-tool-kind")).toBe("search");
    // the child messages are not top-level rows
    expect(container.querySelector('[data-row-key="msg_sub"]')).toBeNull();
  });

  it("renders skill, ask-user, compaction markers and system-status lines", () => {
    const { container } = renderEvents(events);
    expect(card(container, "toolu_skill").textContent).toContain("Used skill");
    expect(card(container, "toolu_ask").getAttribute("data-tool-kind")).toBe("ask-user");
    expect(container.querySelectorAll(".jc-part--compact").length).toBeGreaterThanOrEqual(2);
    expect(container.querySelector(".jc-part--compact")!.textContent).toMatch(/Context compacted (automatically|manually)/);
    // Known statuses render as lines; unknown subtypes and types (quiet notices) are collapsed and counted.
    expect(container.querySelectorAll(".jc-part--status").length).toBeGreaterThanOrEqual(1);
    const quiet = [...container.querySelectorAll(".jc-quiet > summary")].map((e) => e.textContent);
    expect(quiet.length).toBeGreaterThanOrEqual(1);
    expect(quiet.join(" ")).toMatch(/\d+ system notices?/);
    // each notice reads as words, its raw frame only inside the collapsed details
    const items = [...container.querySelectorAll(".jc-quiet__item > summary")].map((e) => e.textContent ?? "");
    expect(items.some((t) => t.includes("task notification"))).toBe(true);
    expect(items.every((t) => !t.includes("task_notification"))).toBe(true);
    expect(container.querySelector(".jc-part--unknown")).toBeNull();
    // malformed frames became error notices
    expect(container.querySelectorAll(".jc-tv-notice.is-error")).toHaveLength(2);
  });
});

describe("system-status tones", () => {
  it("shows a warning line (the app's MCP tools lost after a restart) apart from info and error lines", () => {
    const line = (id: string, status: string, text: string) =>
      m(id, [{ type: "system-status", subtype: "mcp", status, text }], { role: "system" });
    const { container } = renderEvents([
      line("w", "warning", "Jean-Claude's tools are not available to this agent until its next session: the port was taken."),
      line("i", "info", "Some info."),
      line("e", "error", "Some error."),
    ]);
    const lines = [...container.querySelectorAll(".jc-part--status")];
    expect(lines.map((l) => l.className.replace("jc-part jc-part--status", "").trim())).toEqual(["is-warning", "", "is-error"]);
    expect(lines[0].textContent).toContain("until its next session: the port was taken.");
  });
});

describe("every part type of the recordings renders", () => {
  for (const [name, fx] of Object.entries(FIXTURES)) {
    it(name, () => {
      const { container, state } = renderEvents(fx.events);
      expect(container.querySelector(".jc-part--unknown")).toBeNull();
      // every top-level tool use has a card (sub-agent tools render when their card opens)
      const topLevel = [...state.toolUses.values()].filter((u) => {
        const parent = state.messages.get(u.messageId)?.msg.parentToolUseId;
        return !parent || !state.toolUses.has(parent);
      });
      expect(container.querySelectorAll(".jc-tool").length).toBe(topLevel.length);
    });
  }

  it("opencode: a task tool's child session renders under its card", () => {
    const { container } = renderEvents(FIXTURES["opencode-synthetic-subagent"].events);
    const task = card(container, "call_task1");
    expect(task.getAttribute("data-tool-kind")).toBe("sub-agent");
    expect(container.querySelector('[data-row-key="msg_ca1"]')).toBeNull();
    open(task);
    expect(task.querySelector(".jc-subagent-stream")).not.toBeNull();
  });

  it("opencode: tool results in the same message render inside their cards", () => {
    const { container } = renderEvents(FIXTURES["opencode-serve-basic"].events);
    expect(container.querySelectorAll(".jc-tool").length).toBeGreaterThan(0);
    expect(container.querySelector(".jc-part--tool-result")).toBeNull();
    for (const c of container.querySelectorAll(".jc-tool")) expect(c.getAttribute("data-state")).toBe("completed");
  });
});

describe("permission decisions", () => {
  it("label the tool card they answered", async () => {
    const { addDecisions } = await import("../timeline/state");
    const { StaticTimeline, stateOf } = await import("./testing");
    const { render } = await import("@testing-library/react");
    const state = stateOf([m("a", [{ type: "tool-use", toolId: "t", toolName: "Bash", kind: "execute", input: { command: "npm test" } }])]);
    addDecisions(state, [{ taskId: "x", requestId: "r", toolId: "t", toolName: "Bash", behavior: "allow", scope: "project", source: "rule", label: "allowed by rule: Bash(npm test) for this project", createdAt: 1 }]);
    const { container } = render(<StaticTimeline state={state} />);
    expect(card(container, "t").textContent).toContain("allowed by rule: Bash(npm test) for this project");
  });

  it("keep the chip's full text on hover (it is cut in a narrow row), with the answer's message", async () => {
    const { addDecisions } = await import("../timeline/state");
    const { StaticTimeline, stateOf } = await import("./testing");
    const { render } = await import("@testing-library/react");
    const state = stateOf([m("a", [{ type: "tool-use", toolId: "t", toolName: "Write", kind: "edit", input: { file_path: "/w/src/a.go" } }])]);
    const label = "always allowed by you: Write(/w/src/a.go) for this task";
    addDecisions(state, [{ taskId: "x", requestId: "r", toolId: "t", toolName: "Write", behavior: "allow", scope: "task", source: "user", label, message: "fine", createdAt: 1 }]);
    const { container } = render(<StaticTimeline state={state} />);
    const chip = card(container, "t").querySelector(".jc-chip.is-decision")!;
    expect(chip.getAttribute("title")).toBe(`${label}\nfine`);
  });
});

describe("question answers", () => {
  it("label the question's tool card with the user's answer, each question's on hover", async () => {
    const { addAnswers } = await import("../timeline/state");
    const { StaticTimeline, stateOf } = await import("./testing");
    const { render } = await import("@testing-library/react");
    const state = stateOf([m("a", [{ type: "tool-use", toolId: "q", toolName: "AskUserQuestion", input: { questions: [] } }])]);
    state.pending.set("r", { kind: "question", request: { requestId: "r", toolId: "q" } as never });
    addAnswers(state, [
      {
        taskId: "x",
        requestId: "r",
        toolId: "q",
        request: { requestId: "r", question: "Which color?", questions: [{ question: "Which color?" }, { question: "Why?" }] } as never,
        answers: [["blue", "green"], ["my own words"]],
        createdAt: 1,
      },
    ]);
    expect(state.pending.has("r")).toBe(false);
    const { container } = render(<StaticTimeline state={state} />);
    const chip = card(container, "q").querySelector(".jc-chip.is-decision")!;
    expect(chip.textContent).toBe("answered by you: blue, green · my own words");
    expect(chip.getAttribute("title")).toBe("Which color?: blue, green\nWhy?: my own words");
  });
});

describe("todo updates that carry only ids", () => {
  it("take the item's text from earlier todo results", () => {
    const { container } = renderEvents(FIXTURES["claude-synthetic"].events);
    const upd = card(container, "toolu_tu");
    expect(upd.querySelector(".jc-todo__text")!.textContent).toBe("Write tests");
    expect(upd.querySelector(".jc-todo")!.className).toContain("is-in_progress");
  });
});
