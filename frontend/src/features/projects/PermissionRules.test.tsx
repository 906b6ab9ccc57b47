import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { expect, test } from "vitest";
import { PermissionRules, type Rule, type RulesApi } from "./PermissionRules";

function fakeApi(rules: Rule[]): RulesApi & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    list: async () => rules,
    edit: async (id, kind, pattern) => {
      calls.push(`edit ${id} ${kind} ${pattern}`);
      const r = rules.find((x) => x.id === id)!;
      return { ...r, matchKind: kind, pattern };
    },
    remove: async (id) => {
      calls.push(`remove ${id}`);
    },
  };
}

const bash: Rule = { id: "r1", scope: "project", toolName: "Bash", matchKind: "exact", pattern: "npm test", subjectType: "command", createdAt: 1 };
const write: Rule = { id: "r2", scope: "task", taskId: "t1", toolName: "Write", matchKind: "exact", pattern: "/w/src/a.go", subjectType: "path", createdAt: 2 };

test("a rule is edited after it is made: exact command to a prefix, with the preview and checks of the permission card", async () => {
  const api = fakeApi([bash, write]);
  const user = userEvent.setup();
  render(<PermissionRules projectId="p1" api={api} />);
  await user.click(await screen.findByRole("button", { name: "Edit Bash(npm test)" }));
  const input = screen.getByLabelText("What Bash rule covers");
  expect(screen.getByTestId("rule-edit")).toHaveTextContent("“npm test:*” = npm test with any arguments"); // how to write a prefix
  await user.clear(input);
  await user.type(input, "npm; rm:*");
  expect(screen.getByTestId("rule-edit-preview")).toHaveTextContent("A prefix cannot contain");
  expect(screen.getByRole("button", { name: "Save" })).toBeDisabled();
  await user.clear(input);
  await user.type(input, "npm:*");
  expect(screen.getByTestId("rule-edit-preview")).toHaveTextContent("“npm” and the same command with more arguments");
  await user.click(screen.getByRole("button", { name: "Save" }));
  expect(api.calls).toEqual(["edit r1 prefix npm"]);
  expect(await screen.findByText("Bash(npm:*)")).toBeInTheDocument();
});

test("a path rule can become a folder; Escape cancels; Revoke still removes", async () => {
  const api = fakeApi([bash, write]);
  const user = userEvent.setup();
  render(<PermissionRules projectId="p1" api={api} />);
  await user.click(await screen.findByRole("button", { name: "Edit Write(/w/src/a.go)" }));
  const input = screen.getByLabelText("What Write rule covers");
  expect(screen.getByTestId("rule-edit")).toHaveTextContent("“src/” = any file in that folder");
  await user.clear(input);
  await user.type(input, "/w/src/{Enter}");
  expect(api.calls).toEqual(["edit r2 folder /w/src"]);
  expect(await screen.findByText("Write(/w/src/)")).toBeInTheDocument();
  await user.click(screen.getByRole("button", { name: "Edit Bash(npm test)" }));
  await user.keyboard("{Escape}");
  expect(screen.queryByTestId("rule-edit")).toBeNull();
  const rows = screen.getAllByTestId("rule-row");
  await user.click(within(rows[0]).getByRole("button", { name: "Revoke Bash(npm test)" }));
  expect(api.calls).toContain("remove r1");
});
