import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { AgentsScreen } from "./AgentsScreen";
import { createFakeAgentsApi } from "./fake";
import { envText, isNewer, parseEnv } from "./api";

// The page keeps its last state in localStorage: each test starts without it.
beforeEach(() => localStorage.clear());

describe("AgentsScreen", () => {
  test("lists found and missing agents with version, source and an update notice", async () => {
    render(<AgentsScreen api={createFakeAgentsApi()} />);
    const claude = await screen.findByTestId("agent-claude-code");
    expect(claude).toHaveAttribute("data-found", "true");
    expect(within(claude).getByText("v2.1.330 (Claude Code)")).toBeInTheDocument();
    expect(within(claude).getByText("on PATH")).toBeInTheDocument();
    expect(await within(claude).findByText("update: 2.2.0")).toBeInTheDocument();
    const oc = screen.getByTestId("agent-opencode");
    expect(oc).toHaveAttribute("data-found", "false");
    expect(within(oc).getByText("not found")).toBeInTheDocument();
    expect(within(oc).getByRole("button", { name: "Check health" })).toBeDisabled();
    // Not on npm: no install button.
    const goose = screen.getByTestId("agent-acp.block.goose");
    expect(within(goose).queryByRole("button", { name: "Install" })).toBeNull();
    expect(screen.getByText(/1 of 3 agent CLIs found/)).toBeInTheDocument();
  });

  test("health check shows what answered", async () => {
    const user = userEvent.setup();
    render(<AgentsScreen api={createFakeAgentsApi()} />);
    const claude = await screen.findByTestId("agent-claude-code");
    await user.click(within(claude).getByRole("button", { name: "Check health" }));
    expect(await within(claude).findByText(/Healthy: initialize answered \(5 models, 44 commands\) \(2\.4 s\)/)).toBeInTheDocument();
  });

  test("while checking, the button keeps its element and both labels, so it keeps its width and nothing beside it moves (#23)", async () => {
    const api = createFakeAgentsApi();
    let answer!: () => void;
    const health = api.health;
    api.health = (b) => new Promise((resolve) => (answer = () => resolve(health(b))));
    const user = userEvent.setup();
    render(<AgentsScreen api={api} />);
    const claude = await screen.findByTestId("agent-claude-code");
    const btn = within(claude).getByRole("button", { name: "Check health" });
    const actions = btn.parentElement!;
    const before = Array.from(actions.children);
    expect(btn.textContent).toBe("Check healthStarting…");
    await user.click(btn);
    const busy = within(claude).getByRole("button", { name: "Starting…" });
    expect(busy).toBe(btn); // the same element, not a new, narrower one
    expect(btn).toBeDisabled();
    expect(btn.textContent).toBe("Check healthStarting…"); // both labels still laid out in one cell
    expect(btn.querySelector('[data-shown="false"]')).toHaveTextContent("Check health");
    expect(Array.from(actions.children)).toEqual(before); // no control added or removed beside it
    answer();
    expect(await within(claude).findByText(/Healthy/)).toBeInTheDocument();
    expect(within(claude).getByRole("button", { name: "Check health" })).toBe(btn);
  });

  test("install from the app: progress, then installed by Jean-Claude; a failure shows the npm log", async () => {
    const api = createFakeAgentsApi();
    const user = userEvent.setup();
    render(<AgentsScreen api={api} />);
    const oc = await screen.findByTestId("agent-opencode");
    api.failInstall = "npm error code ETARGET\nnpm error notarget No matching version found for opencode-ai@9.9.9";
    await user.click(within(oc).getByRole("button", { name: "Install" }));
    const alert = await within(oc).findByRole("alert");
    expect(alert).toHaveTextContent("No matching version found");
    expect(oc).toHaveAttribute("data-found", "false");

    await user.click(within(oc).getByRole("button", { name: "Install" }));
    await waitFor(() => expect(oc).toHaveAttribute("data-found", "true"));
    expect(within(oc).getByText("installed by Jean-Claude")).toBeInTheDocument();
    expect(within(oc).getByRole("button", { name: "Uninstall 1.18.33" })).toBeInTheDocument();
    expect(within(oc).queryByRole("alert")).toBeNull();

    await user.click(within(oc).getByRole("button", { name: "Uninstall 1.18.33" }));
    await waitFor(() => expect(oc).toHaveAttribute("data-found", "false"));
  });

  test("settings: the MCP toggle turns Jean-Claude's tools off for one agent", async () => {
    const api = createFakeAgentsApi();
    const user = userEvent.setup();
    render(<AgentsScreen api={api} />);
    const claude = await screen.findByTestId("agent-claude-code");
    await user.click(within(claude).getByRole("button", { name: "Settings" }));
    const form = within(claude).getByRole("form", { name: "Claude Code settings" });
    const box = within(form).getByTestId("agent-mcp");
    expect(box).toBeChecked();
    await user.click(box);
    await user.click(within(form).getByRole("button", { name: "Save settings" }));
    await within(form).findByText(/Saved/);
    expect(api.stored["claude-code"]).toMatchObject({ disableMcp: true });
  });

  test("settings: secrets come back masked and keep their value when saved again", async () => {
    const api = createFakeAgentsApi();
    const user = userEvent.setup();
    render(<AgentsScreen api={api} />);
    const claude = await screen.findByTestId("agent-claude-code");
    await user.click(within(claude).getByRole("button", { name: "Settings" }));
    const form = within(claude).getByRole("form", { name: "Claude Code settings" });
    const env = within(form).getByLabelText("Environment");
    await user.type(env, "ANTHROPIC_API_KEY=sk-live-123{enter}HTTP_PROXY=http://proxy:8080");
    await user.type(within(form).getByLabelText("Default model"), "sonnet");
    await user.selectOptions(within(form).getByLabelText("Default mode"), "plan");
    await user.click(within(form).getByRole("button", { name: "Save settings" }));
    await within(form).findByText(/Saved/);
    expect(env).toHaveValue("ANTHROPIC_API_KEY=••••••••\nHTTP_PROXY=http://proxy:8080");
    expect(screen.queryByText(/sk-live-123/)).toBeNull();
    expect(api.stored["claude-code"]).toMatchObject({ defaultModel: "sonnet", defaultMode: "plan", env: { ANTHROPIC_API_KEY: "sk-live-123" } });
    await user.click(within(form).getByRole("button", { name: "Save settings" }));
    await waitFor(() => expect(api.stored["claude-code"].env.ANTHROPIC_API_KEY).toBe("sk-live-123"));

    await user.clear(env);
    await user.type(env, "not a pair");
    await user.click(within(form).getByRole("button", { name: "Save settings" }));
    expect(await within(form).findByText("line 1: expected KEY=VALUE")).toBeInTheDocument();
  }, 20_000); // types ~80 keystrokes: over 5 s on the shared 2-core VM under load
});

describe("helpers", () => {
  test("isNewer compares x.y.z", () => {
    expect(isNewer("2.2.0", "2.1.330 (Claude Code)")).toBe(true);
    expect(isNewer("1.18.33", "1.18.33")).toBe(false);
    expect(isNewer("1.9.0", "1.10.0")).toBe(false);
    expect(isNewer("", "1.0.0")).toBe(false);
  });
  test("env text round trip", () => {
    expect(parseEnv("# c\nB=2\n\nA=x=y").env).toEqual({ A: "x=y", B: "2" });
    expect(envText({ B: "2", A: "1" })).toBe("A=1\nB=2");
    expect(parseEnv("=x").error).toBe("line 1: expected KEY=VALUE");
  });
});

describe("secrets and first paint", () => {
  test("values that look like credentials are masked whatever their name", async () => {
    const { looksSecretValue } = await import("./api");
    expect(looksSecretValue("postgres://u:pw@h/db")).toBe(true);
    expect(looksSecretValue("ghp_abcdefghijklmnopqrstuvwxyz0123")).toBe(true);
    expect(looksSecretValue("http://proxy:3128")).toBe(false);
  });
});

describe("first paint from the last known state", () => {
  test("nine agents paint from lastKnown at once while the real list is still detecting", async () => {
    const { fakeAgents } = await import("./fake");
    const base = fakeAgents();
    const nine = Array.from({ length: 9 }, (_, i) => ({ ...base[i % base.length], backend: `agent-${i}`, displayName: `Agent ${i}` }));
    const api = {
      ...createFakeAgentsApi(),
      list: () => new Promise<never>(() => {}), // detection still running
      lastKnown: async () => nine,
      secretsNote: async () => "No system keyring (Secret Service) is running: secrets are kept in /x/secrets.json (readable only by you).",
    };
    // Painted while list() never answers: from the last known state alone
    // (the time of that paint is measured in a real browser, not here).
    render(<AgentsScreen api={api} />);
    await screen.findByTestId("agent-agent-8");
    expect(screen.getAllByTestId(/^agent-agent-/)).toHaveLength(9);
    expect(screen.getByTestId("agents-refreshing")).toBeInTheDocument();
    expect(await screen.findByTestId("secrets-note")).toHaveTextContent("No system keyring");
  });
});

test("a later visit paints from the copy in localStorage in the first render, without a round trip", async () => {
  const { fakeAgents } = await import("./fake");
  localStorage.setItem("jc.agents.lastKnown", JSON.stringify(fakeAgents()));
  render(<AgentsScreen api={{ ...createFakeAgentsApi(), list: () => new Promise<never>(() => {}), lastKnown: undefined }} />);
  // Synchronous: no await between render and the query.
  expect(screen.getByTestId("agent-claude-code")).toBeInTheDocument();
  expect(screen.getByTestId("agent-opencode")).toBeInTheDocument();
});

describe("first visit from the snapshot inlined into index.html", () => {
  let snap: HTMLScriptElement;
  beforeEach(() => {
    snap = document.createElement("script");
    snap.id = "jc-snapshot";
    snap.type = "application/json";
    document.body.appendChild(snap);
  });
  afterEach(() => snap.remove());

  async function nineAgents() {
    const { fakeAgents } = await import("./fake");
    const base = fakeAgents();
    return Array.from({ length: 9 }, (_, i) => ({ ...base[i % base.length], backend: `agent-${i}`, displayName: `Agent ${i}` }));
  }

  test("the nine cards render in the first render, without a round trip", async () => {
    snap.textContent = JSON.stringify({ projects: [], agents: await nineAgents() });
    const lastKnown = vi.fn(async () => []);
    render(<AgentsScreen api={{ ...createFakeAgentsApi(), list: () => new Promise<never>(() => {}), lastKnown }} />);
    // Synchronous: no await between render and the queries.
    expect(screen.getAllByTestId(/^agent-agent-\d$/)).toHaveLength(9);
    expect(screen.getByTestId("agent-agent-8")).toBeInTheDocument();
    expect(screen.getByTestId("agents-refreshing")).toBeInTheDocument();
  });

  test("once list() answered, a later visit paints what it found, not the older snapshot", async () => {
    snap.textContent = JSON.stringify({ projects: [], agents: await nineAgents() });
    const first = render(<AgentsScreen api={createFakeAgentsApi()} />);
    await waitFor(() => expect(screen.queryByTestId("agents-refreshing")).toBeNull());
    expect(screen.queryByTestId("agent-agent-0")).toBeNull();
    first.unmount();
    render(<AgentsScreen api={{ ...createFakeAgentsApi(), list: () => new Promise<never>(() => {}), lastKnown: undefined }} />);
    expect(screen.getByTestId("agent-claude-code")).toBeInTheDocument();
    expect(screen.queryByTestId("agent-agent-0")).toBeNull();
  });

  test("an empty or unreadable snapshot falls back to the localStorage copy", async () => {
    const { fakeAgents } = await import("./fake");
    localStorage.setItem("jc.agents.lastKnown", JSON.stringify(fakeAgents()));
    for (const text of ['{"projects":[]}', "{not json"]) {
      snap.textContent = text;
      const r = render(<AgentsScreen api={{ ...createFakeAgentsApi(), list: () => new Promise<never>(() => {}), lastKnown: undefined }} />);
      expect(screen.getByTestId("agent-claude-code")).toBeInTheDocument();
      r.unmount();
    }
  });
});
