import { addAgent, agentsProblem, formatDuration, initialAgents, keepBlocked, memberRows } from "./reducers";
import type { CompareMember, CompareView } from "./api";
import { makeTask } from "../../test/fakeApi";

function member(id: string, backend: string, p: Partial<CompareMember> & { status?: string; check?: CompareMember["check"] }): CompareMember {
  return {
    task: makeTask({ id, backend, status: (p.status ?? "completed") as never }),
    durationMs: 60_000,
    costUsd: 0.5,
    inputTokens: 1000,
    outputTokens: 100,
    diff: { taskId: id, available: true, base: "b", head: "h", files: [{ path: "a.txt", status: "A", binary: false, added: 3, removed: 1, patch: "@@\n+x" }], added: 3, removed: 1, at: 0 },
    worktreePath: `/wt/${id}`,
    branch: `jc/${id}`,
    ...p,
  };
}

function view(members: CompareMember[], kept = "", cmd = "make test"): CompareView {
  return { group: { id: "g", projectId: "p", prompt: "do it", createdAt: 0, keptTaskId: kept, keptAt: 0, taskIds: members.map((m) => m.task.id) }, checkCommand: cmd, members };
}

const check = (status: string, exitCode = 0) => ({ taskId: "", command: "make test", status, exitCode, output: "", startedAt: 0, endedAt: 0 });

describe("compare reducers", () => {
  test("agentsProblem: 2 to 5 agents, no duplicate agent+model", () => {
    expect(agentsProblem([{ backend: "claude-code", model: "" }])).toMatch(/at least 2/);
    expect(agentsProblem([{ backend: "claude-code", model: "" }, { backend: "claude-code", model: " " }])).toMatch(/twice/);
    expect(agentsProblem([{ backend: "claude-code", model: "opus" }, { backend: "claude-code", model: "sonnet" }])).toBe("");
    const six = Array.from({ length: 6 }, (_, i) => ({ backend: "b", model: String(i) }));
    expect(agentsProblem(six)).toMatch(/at most 5/);
  });

  test("addAgent picks an unused backend and stops at five; initialAgents starts with two", () => {
    expect(initialAgents("codex", ["claude-code", "codex", "gemini"])).toEqual([
      { backend: "codex", model: "" },
      { backend: "claude-code", model: "" },
    ]);
    let list = initialAgents("a", ["a", "b"]);
    list = addAgent(list, ["a", "b"]);
    expect(list.map((a) => a.backend)).toEqual(["a", "b", "a"]);
    list = addAgent(addAgent(list, ["a"]), ["a"]);
    expect(list).toHaveLength(5);
    expect(addAgent(list, ["a"])).toBe(list);
  });

  test("memberRows: facts, checks and the best marks", () => {
    const v = view([
      member("t1", "claude-code", { costUsd: 0.9, durationMs: 30_000, check: check("passed") }),
      member("t2", "opencode", { costUsd: 0.2, durationMs: 90_000, check: check("failed", 2) }),
      member("t3", "gemini", { costUsd: 0.4, durationMs: 125_000, check: check("passed"), diff: { taskId: "t3", available: true, base: "", head: "", files: [], added: 1, removed: 0, at: 0 } }),
      member("t4", "codex", { status: "running", check: undefined }),
    ]);
    const rows = memberRows(v);
    expect(rows.map((r) => [r.label, r.check, r.checkLabel])).toEqual([
      ["claude-code", "passed", "passed"],
      ["opencode", "failed", "failed (exit 2)"],
      ["gemini", "passed", "passed"],
      ["codex", "none", "not run yet"],
    ]);
    expect(rows[0]).toMatchObject({ duration: "30s", cost: "$0.90", tokens: "1100", files: 1, added: 3, removed: 1, best: ["fastest"] });
    expect(rows[1].best).toEqual(["cheapest"]);
    expect(rows[2]).toMatchObject({ duration: "2m 05s", best: ["smallest passing diff"] });
    expect(rows[3].finished).toBe(false);
    // Equal costs and durations: no "cheapest" or "fastest".
    const tie = memberRows(view([member("a", "x", {}), member("b", "y", {})]));
    expect(tie.flatMap((r) => r.best)).toEqual([]);
  });

  test("keepBlocked: only a finished agent that changed something, once", () => {
    const v = view([member("t1", "a", {}), member("t2", "b", { status: "running" }), member("t3", "c", { diff: { taskId: "t3", available: true, base: "", head: "", files: [], added: 0, removed: 0, at: 0 } })]);
    const rows = memberRows(v);
    expect(keepBlocked(v, rows[0])).toBe("");
    expect(keepBlocked(v, rows[1])).toMatch(/finish/);
    expect(keepBlocked(v, rows[2])).toMatch(/changed nothing/);
    const kept = view(v.members, "t1");
    const krows = memberRows(kept);
    expect(keepBlocked(kept, krows[0])).toMatch(/already kept/);
    expect(krows[0].kept).toBe(true);
    expect(krows[1].removedFromDisk).toBe(true);
  });

  test("formatDuration", () => {
    expect(formatDuration(0)).toBe("—");
    expect(formatDuration(59_400)).toBe("59s");
    expect(formatDuration(3_725_000)).toBe("1h 02m");
  });
});
