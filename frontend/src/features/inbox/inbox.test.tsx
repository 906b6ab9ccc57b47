import { act, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { App } from "../../App";
import { createAppStore } from "../../state/store";
import { fakeApi, makeProject, memoryStorage } from "../../test/fakeApi";
import { fakeInboxApi } from "./fake";
import { emptyInbox, inboxTitle, keyCommand, optionsOf, reduceInbox, type InboxItem } from "./model";
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
    expect(optionsOf(perm).map((o) => o.label)).toEqual(["Allow once", "Always for this task", "Always for this project", "Deny"]);
    expect(optionsOf(plan).map((o) => o.label)).toEqual(["Approve", "Approve and accept edits", "Keep planning"]);
    expect(optionsOf(question).map((o) => o.label)).toEqual(["SQLite", "Postgres"]);
    expect(optionsOf(done).map((o) => o.label)).toEqual(["Mark read"]);
    expect(optionsOf(failed, [], true).map((o) => o.label)).toEqual(["Mark read", "Retry"]);
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

describe("InboxView", () => {
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
