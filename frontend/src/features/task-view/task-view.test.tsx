import { describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { PermissionCard } from "./PermissionCard";
import { QuestionCard, questionsOf } from "./QuestionCard";
import { Composer, type ComposerProps } from "./Composer";
import { StatusBadge, taskIndicator } from "./StatusBadge";
import { ContextMeter, contextUse } from "./ContextMeter";
import { TaskView } from "./TaskView";
import { TaskApiContext } from "./context";
import { createFakeApi } from "./fakeApi";
import { FIXTURES, storedMessages } from "../../fixtures";
import { markdownCacheSize } from "../../parts/Markdown";
import type { Request } from "../../timeline/types";

const perm: Request = { requestId: "p1", toolName: "Bash", toolId: "t1", input: { command: "touch x" }, description: "Create a file" };

describe("PermissionCard", () => {
  it("shows tool, input and description and allows once with Enter", async () => {
    const onAnswer = vi.fn().mockResolvedValue(undefined);
    render(<PermissionCard request={perm} active onAnswer={onAnswer} />);
    expect(screen.getByText("Bash")).toBeInTheDocument();
    expect(screen.getByText("touch x")).toBeInTheDocument();
    expect(screen.getByText("Create a file")).toBeInTheDocument();
    fireEvent.keyDown(window, { key: "Enter" });
    expect(onAnswer).toHaveBeenCalledWith({ behavior: "allow", scope: "once" });
  });

  it("allows always for the task (2) or the project (3 / button)", () => {
    const onAnswer = vi.fn().mockResolvedValue(undefined);
    const { unmount } = render(<PermissionCard request={perm} active onAnswer={onAnswer} />);
    fireEvent.keyDown(window, { key: "2" });
    // The answer carries what "always" covers, as shown (and editable) on the card.
    expect(onAnswer).toHaveBeenLastCalledWith({ behavior: "allow", scope: "task", rule: { matchKind: "prefix", pattern: "touch x" } });
    unmount();
    const second = render(<PermissionCard request={perm} active onAnswer={onAnswer} />);
    fireEvent.click(screen.getByRole("button", { name: /Always for this project/ }));
    expect(onAnswer).toHaveBeenLastCalledWith({ behavior: "allow", scope: "project", rule: { matchKind: "prefix", pattern: "touch x" } });
    // Edited to an exact command before answering.
    second.unmount();
    render(<PermissionCard request={perm} active onAnswer={onAnswer} />);
    fireEvent.change(screen.getByTestId("rule-input"), { target: { value: "touch x" } });
    expect(screen.getByTestId("rule-desc").textContent).toContain("exactly");
    fireEvent.click(screen.getByRole("button", { name: /Always for this project/ }));
    expect(onAnswer).toHaveBeenLastCalledWith({ behavior: "allow", scope: "project", rule: { matchKind: "exact", pattern: "touch x" } });
  });

  it("takes digit shortcuts from the empty composer but not while typing there", () => {
    const onAnswer = vi.fn().mockResolvedValue(undefined);
    render(
      <>
        <PermissionCard request={perm} active onAnswer={onAnswer} />
        <textarea aria-label="box" data-card-digits="" defaultValue="" />
      </>,
    );
    const box = screen.getByLabelText("box") as HTMLTextAreaElement;
    box.focus();
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onAnswer).not.toHaveBeenCalled();
    box.value = "typing";
    fireEvent.keyDown(box, { key: "1" });
    expect(onAnswer).not.toHaveBeenCalled();
    box.value = "";
    fireEvent.keyDown(box, { key: "2" });
    expect(onAnswer).toHaveBeenCalledWith({ behavior: "allow", scope: "task", rule: { matchKind: "prefix", pattern: "touch x" } });
  });

  it("denies with a reason", () => {
    const onAnswer = vi.fn().mockResolvedValue(undefined);
    render(<PermissionCard request={perm} active onAnswer={onAnswer} />);
    fireEvent.keyDown(window, { key: "4" });
    const input = screen.getByLabelText("Reason");
    expect(input).toHaveFocus();
    fireEvent.change(input, { target: { value: "use the tmp dir" } });
    fireEvent.submit(input.closest("form")!);
    expect(onAnswer).toHaveBeenCalledWith({ behavior: "deny", scope: "once", message: "use the tmp dir" });
  });

  it("ignores shortcuts when not the active card and stays with an error when answering fails", async () => {
    const onAnswer = vi.fn().mockRejectedValue(new Error("unknown request id"));
    const { rerender } = render(<PermissionCard request={perm} active={false} onAnswer={onAnswer} />);
    fireEvent.keyDown(window, { key: "1" });
    expect(onAnswer).not.toHaveBeenCalled();
    rerender(<PermissionCard request={perm} active onAnswer={onAnswer} />);
    fireEvent.click(screen.getByRole("button", { name: /Allow once/ }));
    expect(await screen.findByRole("alert")).toHaveTextContent("unknown request id");
    expect(screen.getByTestId("permission-card")).toBeInTheDocument();
  });
});

describe("PermissionCard diff preview", () => {
  it("shows what an edit would change before it is allowed", () => {
    const req: Request = { requestId: "p2", toolName: "Edit", input: { file_path: "/p/a.go", old_string: "x := 1\n", new_string: "x := 2\n" } };
    const { container } = render(<PermissionCard request={req} active={false} onAnswer={vi.fn()} />);
    expect(container.querySelector(".jc-diff__line.is-del")!.textContent).toContain("x := 1");
    expect(container.querySelector(".jc-diff__line.is-add")!.textContent).toContain("x := 2");
  });
});

describe("QuestionCard", () => {
  const q: Request = {
    requestId: "q1",
    questions: [
      { question: "Which greeting?", header: "Greeting", options: [{ id: "a", label: "Hello" }, { id: "b", label: "Hi" }] },
      { question: "Extras?", multiSelect: true, options: [{ id: "c", label: "Emoji" }, { id: "d", label: "Bold" }] },
    ],
  };

  it("answers with number keys and Enter", () => {
    const onAnswer = vi.fn().mockResolvedValue(undefined);
    render(<QuestionCard request={q} active onAnswer={onAnswer} />);
    fireEvent.keyDown(window, { key: "2" }); // Hi, moves to the next question
    fireEvent.keyDown(window, { key: "1" }); // Emoji
    fireEvent.keyDown(window, { key: "2" }); // Bold
    fireEvent.keyDown(window, { key: "Enter" });
    expect(onAnswer).toHaveBeenCalledWith([["Hi"], ["Emoji", "Bold"]]);
  });

  it("accepts free text and waits until every question has an answer", () => {
    const onAnswer = vi.fn().mockResolvedValue(undefined);
    render(<QuestionCard request={q} active onAnswer={onAnswer} />);
    const send = screen.getByRole("button", { name: /Send answer/ });
    expect(send).toBeDisabled();
    fireEvent.change(screen.getByLabelText("Answer to: Which greeting?"), { target: { value: "Howdy" } });
    fireEvent.click(screen.getByRole("button", { name: /Bold/ }));
    fireEvent.click(send);
    expect(onAnswer).toHaveBeenCalledWith([["Howdy"], ["Bold"]]);
  });

  it("keeps the typed answer and says why when it could not be stored, then sends it again", async () => {
    const onAnswer = vi.fn().mockRejectedValueOnce(new Error("store answer to question q1 (not sent): database or disk is full")).mockResolvedValue(undefined);
    render(<QuestionCard request={q} active onAnswer={onAnswer} />);
    fireEvent.change(screen.getByLabelText("Answer to: Which greeting?"), { target: { value: "Howdy, my own words" } });
    fireEvent.click(screen.getByRole("button", { name: /Bold/ }));
    fireEvent.click(screen.getByRole("button", { name: /Send answer/ }));
    expect(await screen.findByRole("alert")).toHaveTextContent("database or disk is full");
    expect(screen.getByLabelText("Answer to: Which greeting?")).toHaveValue("Howdy, my own words");
    fireEvent.click(screen.getByRole("button", { name: /Send answer/ }));
    await waitFor(() => expect(onAnswer).toHaveBeenCalledTimes(2));
    expect(onAnswer).toHaveBeenLastCalledWith([["Howdy, my own words"], ["Bold"]]);
  });

  it("reads the single-question form", () => {
    expect(questionsOf({ requestId: "x", question: "Go?", options: [{ id: "y", label: "Yes" }] })).toEqual([
      { question: "Go?", options: [{ id: "y", label: "Yes" }] },
    ]);
  });
});

describe("Composer", () => {
  const base = (): ComposerProps => ({
    busy: false,
    queue: [],
    mode: "ask",
    model: "sonnet",
    onSend: vi.fn().mockResolvedValue(undefined),
    onStop: vi.fn().mockResolvedValue(undefined),
    onEditQueued: vi.fn().mockResolvedValue(undefined),
    onRemoveQueued: vi.fn().mockResolvedValue(undefined),
    onSetMode: vi.fn().mockResolvedValue(undefined),
    onSetModel: vi.fn().mockResolvedValue(undefined),
  });

  it("sends with Enter, keeps Shift+Enter for new lines and clears", async () => {
    const p = base();
    render(<Composer {...p} />);
    const box = screen.getByLabelText("Message");
    fireEvent.change(box, { target: { value: "run the tests" } });
    fireEvent.keyDown(box, { key: "Enter", shiftKey: true });
    expect(p.onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(box, { key: "Enter" });
    expect(p.onSend).toHaveBeenCalledWith("run the tests");
    await waitFor(() => expect(box).toHaveValue(""));
  });

  it("shows queued messages to edit and remove, a stop button while busy, and switches mode and model", async () => {
    const p = { ...base(), busy: true, queue: [{ id: "q1", taskId: "t", text: "then lint", position: 1, createdAt: 1 }] };
    render(<Composer {...p} />);
    expect(screen.getByTestId("queued-message")).toHaveTextContent("then lint");
    fireEvent.click(screen.getByRole("button", { name: "Edit" }));
    const edit = screen.getByLabelText("Edit queued message");
    fireEvent.change(edit, { target: { value: "then lint and test" } });
    fireEvent.submit(edit.closest("form")!);
    await waitFor(() => expect(p.onEditQueued).toHaveBeenCalledWith("q1", "then lint and test"));
    fireEvent.click(await screen.findByRole("button", { name: "Remove" }));
    expect(p.onRemoveQueued).toHaveBeenCalledWith("q1");
    fireEvent.click(screen.getByRole("button", { name: "Stop" }));
    expect(p.onStop).toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText("Mode"), { target: { value: "plan" } });
    expect(p.onSetMode).toHaveBeenCalledWith("plan");
    const model = screen.getByLabelText("Model");
    fireEvent.change(model, { target: { value: "opus" } });
    fireEvent.blur(model);
    expect(p.onSetModel).toHaveBeenCalledWith("opus");
    expect(screen.getByRole("button", { name: "Queue" })).toBeInTheDocument();
  });
});

describe("StatusBadge and ContextMeter", () => {
  it("maps task statuses to indicators", () => {
    expect(["created", "running", "waiting", "completed", "errored", "interrupted", undefined].map(taskIndicator)).toEqual([
      "none", "busy", "waiting", "idle", "idle", "idle", "none",
    ]);
    const { container } = render(<StatusBadge status="running" unread />);
    expect(container.querySelector("[data-status]")!.getAttribute("data-status")).toBe("busy");
    expect(screen.getByLabelText("unread")).toBeInTheDocument();
  });

  it("meters context use from modelUsage", () => {
    const usage = { big: { inputTokens: 150000, outputTokens: 10000, cacheReadTokens: 10000, contextWindow: 200000 } };
    expect(contextUse(usage)).toMatchObject({ model: "big", used: 170000, ratio: 0.85 });
    render(<ContextMeter usage={usage} />);
    const meter = screen.getByRole("meter");
    expect(meter).toHaveAttribute("aria-valuenow", "170000");
    expect(meter).toHaveClass("is-high");
    expect(meter).toHaveTextContent("85%");
  });
});

describe("TaskView", () => {
  it("opens at the newest page and, asked to focus an older message, loads back to it", async () => {
    const msgs = Array.from({ length: 500 }, (_, i) => ({
      id: `m${i}`,
      role: "assistant" as const,
      parts: [{ type: "text" as const, text: `message ${i}` }],
      timestamp: "2026-11-26T10:00:00Z",
    }));
    const fake = createFakeApi({ task: { id: "t1", name: "Long", status: "completed", backend: "claude-code" }, messages: msgs });
    const asked: unknown[][] = [];
    const page = fake.api.messagePage;
    fake.api.messagePage = (...a) => {
      asked.push(a);
      return page(...a);
    };
    const view = render(
      <TaskApiContext.Provider value={fake.api}>
        <TaskView taskId="t1" />
      </TaskApiContext.Provider>,
    );
    await screen.findByText("Long");
    await waitFor(() => expect(screen.getByTestId("message-stream")).toHaveAttribute("data-rows", "200"));
    expect(asked).toEqual([["t1", -1, 200, undefined]]);
    view.rerender(
      <TaskApiContext.Provider value={fake.api}>
        <TaskView taskId="t1" focus={{ messageId: "m40", at: 1 }} />
      </TaskApiContext.Provider>,
    );
    await waitFor(() => expect(screen.getByTestId("message-stream")).toHaveAttribute("data-rows", "460"));
    expect(asked[1]).toEqual(["t1", 300, 200, "m40"]);
  });

  it("loads the transcript, answers a pending permission and shows queued follow-ups", async () => {
    const fx = FIXTURES["claude-bidi-perm-allow"];
    const fake = createFakeApi({
      task: { id: "t1", name: "Touch a file", status: "waiting", backend: "claude-code", interactionMode: "ask" },
      messages: storedMessages(fx),
      pending: [{ taskId: "t1", requestId: "perm-1", kind: "permission", request: { requestId: "perm-1", toolName: "Bash", input: { command: "touch x" } }, createdAt: 1 }],
    });
    render(
      <TaskApiContext.Provider value={fake.api}>
        <TaskView taskId="t1" />
      </TaskApiContext.Provider>,
    );
    expect(await screen.findByText("Touch a file")).toBeInTheDocument();
    expect(screen.getByTestId("message-stream")).toHaveAttribute("data-rows", "3");
    // waiting: the permission card is there until answered
    const cardEl = screen.getByTestId("permission-card");
    expect(cardEl).toHaveTextContent("touch x");
    fireEvent.click(screen.getByRole("button", { name: /Allow once/ }));
    await waitFor(() => expect(screen.queryByTestId("permission-card")).toBeNull());
    expect(fake.calls.find((c) => c.method === "respondToPermission")!.args).toEqual(["t1", "perm-1", { behavior: "allow", scope: "once" }]);
    expect(fake.calls.some((c) => c.method === "markRead")).toBe(true);

    // a follow-up while busy lands in the queue
    act(() => fake.emitTask({ id: "t1", name: "Touch a file", status: "running" }));
    const box = screen.getByLabelText("Message");
    fireEvent.change(box, { target: { value: "now delete it" } });
    fireEvent.keyDown(box, { key: "Enter" });
    await waitFor(() => expect(fake.calls.some((c) => c.method === "sendMessage" && c.args[1] === "now delete it")).toBe(true));
    act(() => fake.emitQueue({ taskId: "t1", items: [{ id: "q1", taskId: "t1", text: "now delete it", position: 1, createdAt: 1 }] }));
    expect(screen.getByTestId("queued-message")).toHaveTextContent("now delete it");
    // events of other tasks are ignored; a new request for this task shows a card again
    act(() => fake.emitRequests({ taskId: "other", requests: [] }));
    act(() => fake.emitRequests({ taskId: "t1", requests: [{ taskId: "t1", requestId: "q9", kind: "question", request: { requestId: "q9", question: "Sure?", options: [{ id: "y", label: "Yes" }] }, createdAt: 2 }] }));
    expect(screen.getByTestId("question-card")).toHaveTextContent("Sure?");
  });

  it("shows the user's stored answers on the questions' tool cards, and a new one as it is stored", async () => {
    const ask = (toolId: string) => ({ type: "tool-use" as const, toolId, toolName: "AskUserQuestion", input: {} });
    const fake = createFakeApi({
      task: { id: "t1", name: "Ask", status: "running", backend: "claude-code" },
      messages: [{ id: "a1", role: "assistant", parts: [ask("tq1"), ask("tq2")], timestamp: "2026-11-29T10:00:00Z" }],
      answers: [{ taskId: "t1", requestId: "q1", toolId: "tq1", request: { requestId: "q1", question: "Which color?" }, answers: [["blue"]], createdAt: 1 }],
    });
    const { container } = render(
      <TaskApiContext.Provider value={fake.api}>
        <TaskView taskId="t1" />
      </TaskApiContext.Provider>,
    );
    const chip = (id: string) => container.querySelector(`[data-tool-id="${id}"] .jc-chip.is-decision`);
    await waitFor(() => expect(chip("tq1")).toHaveTextContent("answered by you: blue"));
    expect(chip("tq2")).toBeNull();
    act(() => fake.emitAnswer({ taskId: "other", answer: { taskId: "other", requestId: "q2", toolId: "tq2", request: { requestId: "q2" }, answers: [["no"]], createdAt: 2 } }));
    expect(chip("tq2")).toBeNull();
    act(() => fake.emitAnswer({ taskId: "t1", answer: { taskId: "t1", requestId: "q2", toolId: "tq2", request: { requestId: "q2" }, answers: [["typed words"]], createdAt: 2 } }));
    await waitFor(() => expect(chip("tq2")).toHaveTextContent("answered by you: typed words"));
  });

  it("says why a host is unreachable in words, ssh's own error under Details", async () => {
    const fake = createFakeApi({
      task: { id: "t9", status: "running", statusReason: "host unreachable since 15:04:05: connection lost\nremote: relay r1: EOF" },
    });
    render(
      <TaskApiContext.Provider value={fake.api}>
        <TaskView taskId="t9" />
      </TaskApiContext.Provider>,
    );
    const banner = await screen.findByTestId("host-unreachable");
    expect(banner).toHaveTextContent("Host unreachable: since 15:04:05: connection lost. Jean-Claude reconnects");
    const detail = screen.getByTestId("host-unreachable-detail");
    expect(detail).toHaveTextContent("remote: relay r1: EOF");
    expect(detail.closest("details")).not.toHaveAttribute("open");
  });

  it("applies live agent events batched per frame", async () => {
    const fake = createFakeApi({ task: { id: "t2", status: "running" } });
    render(
      <TaskApiContext.Provider value={fake.api}>
        <TaskView taskId="t2" />
      </TaskApiContext.Provider>,
    );
    expect(await screen.findByText("No messages yet.")).toBeInTheDocument();
    const fx = FIXTURES["claude-main-print-bypass"];
    act(() => fx.events.forEach((event, i) => fake.emitAgent({ taskId: "t2", seq: i + 1, event })));
    await waitFor(() => expect(screen.getByTestId("message-stream")).toHaveAttribute("data-rows", "5"));
  });

  it("marks where unread messages start", async () => {
    const fx = FIXTURES["claude-main-print-bypass"];
    const msgs = storedMessages(fx);
    // The user last saw the first assistant message.
    const firstAssistant = msgs.find((m) => m.role === "assistant")!;
    localStorage.setItem("jc:last-seen:t3", firstAssistant.id);
    const fake = createFakeApi({ task: { id: "t3", status: "completed", hasUnread: true }, messages: msgs });
    render(
      <TaskApiContext.Provider value={fake.api}>
        <TaskView taskId="t3" />
      </TaskApiContext.Provider>,
    );
    await waitFor(() => expect(document.querySelector(".jc-unread-divider")).not.toBeNull());
    const row = document.querySelector(".jc-unread-divider")!.closest("[data-index]")!;
    // the divider sits on the row after the last one seen
    expect(row.querySelector(".jc-msg")!.textContent).not.toContain("I'll create hello.txt");
    await waitFor(() => expect(localStorage.getItem("jc:last-seen:t3")).toBe(msgs[msgs.length - 1].id));
  });
});

describe("TaskView and the rendered markdown", () => {
  it("lets go of the transcript's rendered markdown when the view closes", async () => {
    const msgs = Array.from({ length: 30 }, (_, i) => ({
      id: `m${i}`,
      role: "assistant" as const,
      parts: [{ type: "text" as const, text: `**message ${i}**` }],
      timestamp: "2026-11-26T10:00:00Z",
    }));
    const fake = createFakeApi({ task: { id: "t1", name: "Marked", status: "completed", backend: "claude-code" }, messages: msgs });
    const view = render(
      <TaskApiContext.Provider value={fake.api}>
        <TaskView taskId="t1" />
      </TaskApiContext.Provider>,
    );
    await screen.findByText("message 29");
    expect(markdownCacheSize()).toBeGreaterThan(0);
    view.unmount();
    expect(markdownCacheSize()).toBe(0);
  });
});
