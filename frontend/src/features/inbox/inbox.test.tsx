import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { App } from "../../App";
import { createAppStore } from "../../state/store";
import { fakeApi, makeProject, memoryStorage } from "../../test/fakeApi";
import { fakeInboxApi } from "./fake";
import { emptyDraft, emptyInbox, inboxTitle, keyCommand, optionsOf, reduceInbox, stepQuestion, type InboxItem, type QuestionDraft } from "./model";
import { InboxView } from "./InboxView";

function item(over: Partial<InboxItem> & Pick<InboxItem, "key" | "kind">): InboxItem {
  return {
    taskId: over.key.split(":")[1] ?? "t",
    taskName: "Task",
    projectId: "p1",
    projectName: "alpha",
    agentBackend: "claude-code",
    status: "waiting",
    summary: "",
    at: 1,
    ...over,
  };
}

const perm = item({
  key: "request:t1:r1",
  kind: "permission",
  requestId: "r1",
  taskName: "Run tests",
  summary: "Bash wants to run: npm test",
  request: { requestId: "r1", toolName: "Bash", input: { command: "npm test" } },
});
const question = item({
  key: "request:t2:q1",
  kind: "question",
  requestId: "q1",
  taskName: "Pick a db",
  summary: "Which database?",
  request: { requestId: "q1", questions: [{ question: "Which database?", options: [{ id: "a", label: "SQLite" }, { id: "b", label: "Postgres" }] }] },
});
const plan = item({
  key: "request:t3:x1",
  kind: "plan",
  requestId: "x1",
  taskName: "Refactor",
  summary: "Plan ready: Plan",
  plan: "# The plan\n\n1. Split **store.go**\n2. Add tests",
});
const many = Array.from({ length: 12 }, (_, i) => ({ id: `o${i + 1}`, label: `Option ${i + 1}` }));
const long = item({
  key: "request:t6:q2",
  kind: "question",
  requestId: "q2",
  taskName: "Pick a region",
  summary: "Which region?",
  request: { requestId: "q2", questions: [{ question: "Which region?", options: many }] },
});
const free = item({
  key: "request:t7:q3",
  kind: "question",
  requestId: "q3",
  taskName: "Name it",
  summary: "What name?",
  request: { requestId: "q3", question: "What name?" },
});
const multi = item({
  key: "request:t8:q4",
  kind: "question",
  requestId: "q4",
  taskName: "Features",
  summary: "Which features?",
  request: {
    requestId: "q4",
    questions: [
      { question: "Which features?", multiSelect: true, options: [{ id: "a", label: "Auth" }, { id: "s", label: "Search" }, { id: "e", label: "Export" }] },
      { question: "Ship now?", options: [{ id: "y", label: "Yes" }, { id: "n", label: "No" }] },
    ],
  },
});
const failed = item({ key: "error:t4", kind: "error", taskId: "t4", taskName: "Build", status: "errored", summary: "Failed: exit status 2" });
const done = item({ key: "result:t5", kind: "result", taskId: "t5", taskName: "Docs", status: "completed", summary: "Done: all good" });

describe("inbox reducer", () => {
  test("load selects the first item, keeps the selection, and moves to the next when the selected item leaves", () => {
    let s = reduceInbox(emptyInbox, { type: "load", items: [perm, question, plan] });
    expect(s.selected).toBe(perm.key);
    s = reduceInbox(s, { type: "move", delta: 1 });
    expect(s.selected).toBe(question.key);
    s = reduceInbox(s, { type: "load", items: [done, perm, question, plan] });
    expect(s.selected).toBe(question.key);
    s = reduceInbox(s, { type: "load", items: [done, perm, plan] }); // answered
    expect(s.selected).toBe(plan.key);
    s = reduceInbox(s, { type: "load", items: [done, perm] });
    expect(s.selected).toBe(perm.key); // the last one left: the one before
    s = reduceInbox(s, { type: "load", items: [] });
    expect(s.selected).toBeNull();
  });

  test("move stops at both ends; select ignores a key not in the inbox", () => {
    let s = reduceInbox(emptyInbox, { type: "load", items: [perm, question] });
    s = reduceInbox(s, { type: "move", delta: -1 });
    expect(s.selected).toBe(perm.key);
    s = reduceInbox(s, { type: "move", delta: 5 });
    expect(s.selected).toBe(question.key);
    expect(reduceInbox(s, { type: "select", key: "nope" }).selected).toBe(question.key);
    expect(reduceInbox(s, { type: "select", key: perm.key }).selected).toBe(perm.key);
  });

  test("keys: j/k and arrows move, digits choose, Enter opens, modifiers and letters do nothing", () => {
    const k = (key: string, mods: Partial<KeyboardEvent> = {}) => keyCommand({ key, ctrlKey: false, metaKey: false, altKey: false, ...mods });
    expect(k("j")).toEqual({ type: "move", delta: 1 });
    expect(k("ArrowUp")).toEqual({ type: "move", delta: -1 });
    expect(k("k")).toEqual({ type: "move", delta: -1 });
    expect(k("3")).toEqual({ type: "option", index: 2 });
    expect(k("Enter")).toEqual({ type: "open" });
    expect(k("1", { ctrlKey: true })).toBeNull();
    expect(k("x")).toBeNull();
    expect(k("0")).toBeNull();
  });

  test("options per kind", () => {
    expect(optionsOf(perm).map((o) => o.label)).toEqual(["Allow once", "Always for this task", "Always for this project", "Deny…"]);
    expect(optionsOf(plan).map((o) => o.label)).toEqual(["Approve", "Approve and accept edits", "Keep planning"]);
    expect(optionsOf(question).map((o) => o.label)).toEqual(["SQLite", "Postgres"]);
    expect(optionsOf(done).map((o) => o.label)).toEqual(["Mark read"]);
    expect(optionsOf(failed, emptyDraft, true).map((o) => o.label)).toEqual(["Mark read", "Retry"]);
    expect(inboxTitle(0)).toBe("Jean-Claude");
    expect(inboxTitle(3)).toBe("(3) Jean-Claude");
  });
});

async function setup(items: InboxItem[]) {
  const api = fakeApi({ projects: [makeProject({ id: "p1", name: "alpha" })] });
  const inbox = fakeInboxApi(items);
  inbox.onChange = (p) => api.emit("inbox:updated", p);
  const store = createAppStore({ ...api, inbox }, memoryStorage());
  render(<App store={store} />);
  await screen.findByRole("navigation");
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
  return { api, inbox, store, user: userEvent.setup() };
}

describe("question drafts", () => {
  const run = (it: InboxItem, ...steps: Array<{ type: "option"; label: string } | { type: "confirm" } | string>) => {
    let d: QuestionDraft = emptyDraft;
    let answers: string[][] | null = null;
    for (const st of steps) {
      if (typeof st === "string") {
        d = { ...d, text: st };
        continue;
      }
      const r = stepQuestion(it, d, st);
      d = r.draft;
      answers = r.answers;
    }
    return { d, answers };
  };
  const opt = (label: string) => ({ type: "option" as const, label });
  const confirm = { type: "confirm" as const };

  test("a single-choice pick answers its question; past the ninth option every option is listed", () => {
    expect(run(question, opt("Postgres")).answers).toEqual([["Postgres"]]);
    expect(optionsOf(long).map((o) => o.label)).toHaveLength(12);
    expect(run(long, opt("Option 12")).answers).toEqual([["Option 12"]]);
  });

  test("free text answers on confirm; an empty confirm does nothing", () => {
    expect(run(free, confirm)).toEqual({ d: emptyDraft, answers: null });
    expect(run(free, "  ", confirm).answers).toBeNull();
    expect(run(free, " Ada ", confirm).answers).toEqual([["Ada"]]);
    expect(run(question, "MySQL", confirm).answers).toEqual([["MySQL"]]);
  });

  test("multi-select toggles, confirm moves on with the picks (and any text); the next question completes it", () => {
    const { d } = run(multi, opt("Auth"), opt("Export"), opt("Auth"), opt("Search"));
    expect(d).toEqual({ done: [], toggled: ["Export", "Search"], text: "" });
    expect(optionsOf(multi, d).map((o) => o.on)).toEqual([false, true, true]);
    const next = run(multi, opt("Export"), "CSV too", confirm);
    expect(next.answers).toBeNull();
    expect(next.d).toEqual({ done: [["Export", "CSV too"]], toggled: [], text: "" });
    expect(optionsOf(multi, next.d).map((o) => o.label)).toEqual(["Yes", "No"]);
    expect(run(multi, opt("Export"), confirm, opt("No")).answers).toEqual([["Export"], ["No"]]);
  });

  test("the reducer keeps a draft while its item is listed, and the deny field only for a listed permission", () => {
    let s = reduceInbox(emptyInbox, { type: "load", items: [perm, multi] });
    const d = { done: [["Auth"]], toggled: [], text: "" };
    s = reduceInbox(s, { type: "draft", key: multi.key, draft: d });
    s = reduceInbox(s, { type: "load", items: [perm, multi, done] });
    expect(s.drafts[multi.key]).toEqual(d);
    expect(reduceInbox(s, { type: "deny", key: multi.key }).denying).toBeNull();
    s = reduceInbox(s, { type: "deny", key: perm.key });
    expect(s.denying).toBe(perm.key);
    expect(reduceInbox(s, { type: "move", delta: 1 }).denying).toBeNull();
    s = reduceInbox(s, { type: "load", items: [multi] });
    expect(s.denying).toBeNull();
    expect(reduceInbox(s, { type: "load", items: [] }).drafts).toEqual({});
  });

  test("keys: Ctrl+Enter confirms, o and t reach a question's options and text", () => {
    const k = (key: string, mods: Partial<KeyboardEvent> = {}) => keyCommand({ key, ctrlKey: false, metaKey: false, altKey: false, ...mods });
    expect(k("Enter", { ctrlKey: true })).toEqual({ type: "confirm" });
    expect(k("Enter", { metaKey: true })).toEqual({ type: "confirm" });
    expect(k("o")).toEqual({ type: "focus", target: "options" });
    expect(k("t")).toEqual({ type: "focus", target: "text" });
    expect(k("t", { ctrlKey: true })).toBeNull();
  });
});

describe("InboxView", () => {
  test("a question with twelve options: 9 picks the ninth; o, arrows and Enter reach the twelfth", async () => {
    const { inbox, user } = await setup([long, { ...long, key: "request:t6:q9", requestId: "q9" }]);
    await user.click(await screen.findByTestId("inbox-nav"));
    expect(within(screen.getByTestId("inbox-question")).getAllByRole("button", { name: /Option/ })).toHaveLength(12);
    await user.keyboard("9");
    expect(inbox.calls[0]).toEqual(["question", "t6", "q2", [["Option 9"]]]);
    await waitFor(() => expect(screen.getAllByTestId("inbox-item")).toHaveLength(1));
    await user.keyboard("o");
    expect(document.activeElement).toHaveTextContent("Option 1");
    await user.keyboard("{ArrowDown}".repeat(12) + "{ArrowUp}");
    expect(document.activeElement).toHaveTextContent("Option 11");
    // j/k inside the list move the focus, not the inbox selection.
    await user.keyboard("j");
    expect(document.activeElement).toHaveTextContent("Option 12");
    expect(inbox.calls).toHaveLength(1);
    await user.keyboard("{Enter}");
    expect(inbox.calls[1]).toEqual(["question", "t6", "q9", [["Option 12"]]]);
  });

  test("free text: t focuses it, keys typed there fire nothing, Enter sends", async () => {
    const { inbox, store, user } = await setup([free, perm]);
    await user.click(await screen.findByTestId("inbox-nav"));
    expect(screen.getByTestId("inbox-detail")).toHaveAttribute("data-kind", "question");
    await user.keyboard("t");
    expect(document.activeElement).toHaveAttribute("data-free");
    expect(document.activeElement).toHaveValue("");
    await user.keyboard("jk 1 to{Enter}");
    expect(store.getState().screen.kind).toBe("inbox");
    expect(inbox.calls).toEqual([["question", "t7", "q3", [["jk 1 to"]]]]);
    expect(await screen.findByTestId("inbox-detail")).toHaveAttribute("data-kind", "permission");
  });

  test("multi-select: digits toggle, Ctrl+Enter moves on, the last pick sends; Esc leaves the text field", async () => {
    const { inbox, user } = await setup([multi]);
    await user.click(await screen.findByTestId("inbox-nav"));
    await user.keyboard("1312");
    const pressed = within(screen.getByTestId("inbox-question"))
      .getAllByRole("button", { pressed: true })
      .map((b) => b.textContent);
    expect(pressed).toEqual(["2Search", "3Export"]);
    await user.keyboard("t");
    await user.keyboard("2{Escape}");
    expect(document.activeElement).not.toHaveAttribute("data-free");
    expect(inbox.calls).toHaveLength(0);
    await user.keyboard("{Control>}{Enter}{/Control}");
    expect(await screen.findByText("Ship now?")).toBeInTheDocument();
    expect(screen.getByText("Answer: Export, Search, 2")).toBeInTheDocument();
    await user.keyboard("1");
    expect(inbox.calls).toEqual([["question", "t8", "q4", [["Export", "Search", "2"], ["Yes"]]]]);
  });

  test("deny asks for a reason: 4 opens it, keys typed there fire nothing, Enter sends it; Esc cancels; an empty reason sends none", async () => {
    const second = { ...perm, key: "request:t1:r2", requestId: "r2" };
    const { inbox, user } = await setup([perm, second]);
    await user.click(await screen.findByTestId("inbox-nav"));
    await user.keyboard("4");
    const field = screen.getByRole("textbox", { name: "Reason" });
    expect(document.activeElement).toBe(field);
    await user.keyboard("use 1 yarn, j k{Escape}");
    expect(screen.queryByTestId("inbox-deny")).toBeNull();
    expect(inbox.calls).toHaveLength(0);
    await user.keyboard("4");
    await user.keyboard("use yarn 2{Enter}");
    expect(inbox.calls).toEqual([["permission", "t1", "r1", { behavior: "deny", scope: "once", message: "use yarn 2" }]]);
    expect(await screen.findByTestId("inbox-detail")).toHaveAttribute("data-kind", "permission");
    await user.keyboard("4{Enter}");
    expect(inbox.calls[1]).toEqual(["permission", "t1", "r2", { behavior: "deny", scope: "once" }]);
    expect(inbox.calls[1][3]).not.toHaveProperty("message", expect.anything());
  });


  test("the sidebar and the title show the count; the inbox answers a permission, a question and a plan by keyboard", async () => {
    const { inbox, store, user } = await setup([perm, question, plan, failed]);
    const nav = await screen.findByTestId("inbox-nav");
    expect(within(nav).getByTestId("inbox-nav-count")).toHaveTextContent("4");
    expect(document.title).toBe("(4) Jean-Claude");
    await user.click(nav);
    const rows = await screen.findAllByTestId("inbox-item");
    expect(rows.map((r) => r.dataset.kind)).toEqual(["permission", "question", "plan", "error"]);
    expect(screen.getByTestId("inbox-detail")).toHaveAttribute("data-kind", "permission");
    await user.keyboard("1");
    expect(inbox.calls[0]).toEqual(["permission", "t1", "r1", { behavior: "allow", scope: "once" }]);
    // The answered item left: the question is selected.
    expect(await screen.findByTestId("inbox-detail")).toHaveAttribute("data-kind", "question");
    expect(document.title).toBe("(3) Jean-Claude");
    await user.keyboard("2");
    expect(inbox.calls[1]).toEqual(["question", "t2", "q1", [["Postgres"]]]);
    const planDetail = await screen.findByTestId("inbox-detail");
    expect(planDetail).toHaveAttribute("data-kind", "plan");
    // The plan is rendered as markdown.
    expect(within(screen.getByTestId("inbox-plan")).getByRole("heading", { name: "The plan" })).toBeInTheDocument();
    expect(within(screen.getByTestId("inbox-plan")).getByText("store.go").tagName).toBe("STRONG");
    await user.keyboard("2");
    expect(inbox.calls[2]).toEqual(["plan", "t3", "x1", "approve-accept-edits", ""]);
    expect(await screen.findByTestId("inbox-detail")).toHaveAttribute("data-kind", "error");
    await user.keyboard("{Enter}");
    expect(store.getState().screen).toEqual({ kind: "task", taskId: "t4" });
  });

  test("j/k move the selection; a clicked notification (inbox:open) selects exactly its item", async () => {
    const { api, user } = await setup([perm, question, plan, done]);
    await user.click(await screen.findByTestId("inbox-nav"));
    await user.keyboard("jj");
    expect(screen.getByTestId("inbox-detail")).toHaveAttribute("data-kind", "plan");
    await user.keyboard("k");
    expect(screen.getByTestId("inbox-detail")).toHaveAttribute("data-kind", "question");
    act(() => api.emit("inbox:open", { key: done.key, taskId: "t5" }));
    expect(await screen.findByTestId("inbox-detail")).toHaveAttribute("data-kind", "result");
    await user.keyboard("1");
    expect(screen.getAllByTestId("inbox-item")).toHaveLength(3);
  });

  test("inbox:open before its item is listed selects it once listed, and only once", async () => {
    const { api, user } = await setup([perm, question]);
    act(() => api.emit("inbox:open", { key: plan.key, taskId: "t3" }));
    expect(await screen.findByTestId("inbox-detail")).toHaveAttribute("data-kind", "permission");
    act(() => api.emit("inbox:updated", { items: [perm, question, plan], count: 3 }));
    expect(await screen.findByTestId("inbox-detail")).toHaveAttribute("data-kind", "plan");
    await user.keyboard("k");
    act(() => api.emit("inbox:updated", { items: [perm, question, plan, done], count: 4 }));
    expect(screen.getByTestId("inbox-detail")).toHaveAttribute("data-kind", "question");
  });

  test("empty inbox says so", async () => {
    const api = fakeApi();
    const store = createAppStore({ ...api, inbox: fakeInboxApi([]) }, memoryStorage());
    store.setState({ screen: { kind: "inbox" } });
    render(<App store={store} />);
    expect(await screen.findByText(/Nothing is waiting on you/)).toBeInTheDocument();
    expect(InboxView).toBeTypeOf("function");
  });
});
