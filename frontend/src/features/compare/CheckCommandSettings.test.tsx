import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { act } from "react";
import { CheckCommandSettings } from "./CheckCommandSettings";
import type { CompareApi } from "./api";

// A CompareApi whose stored check command arrives when the test says so.
function slowApi(stored: string) {
  let arrive: () => void = () => {};
  const saves: string[] = [];
  const api = {
    checkCommand: () => new Promise<string>((resolve) => (arrive = () => resolve(stored))),
    setCheckCommand: async (_id: string, cmd: string) => {
      saves.push(cmd);
      return cmd;
    },
  } as unknown as CompareApi;
  return { api, saves, arrive: () => arrive() };
}

describe("CheckCommandSettings", () => {
  test("shows the stored command, saves a new one", async () => {
    const { api, saves, arrive } = slowApi("make test");
    const user = userEvent.setup();
    render(<CheckCommandSettings projectId="p1" api={api} />);
    await act(async () => arrive());
    const input = screen.getByLabelText("Check command");
    expect(input).toHaveValue("make test");
    expect(screen.getByRole("button", { name: "Save check" })).toBeDisabled();
    await user.clear(input);
    await user.type(input, "go test ./...");
    await user.click(screen.getByRole("button", { name: "Save check" }));
    expect(await screen.findByRole("button", { name: "Saved" })).toBeInTheDocument();
    expect(saves).toEqual(["go test ./..."]);
  });

  // The e2e suite typed into the field on a slow start before the stored
  // command came back; the load then replaced what was typed and Save stayed
  // disabled.
  test("what the user typed before the stored command arrived is kept", async () => {
    const { api, saves, arrive } = slowApi("");
    const user = userEvent.setup();
    render(<CheckCommandSettings projectId="p1" api={api} />);
    await user.type(screen.getByLabelText("Check command"), 'grep -q "^good" answer.txt');
    await act(async () => arrive());
    expect(screen.getByLabelText("Check command")).toHaveValue('grep -q "^good" answer.txt');
    await user.click(screen.getByRole("button", { name: "Save check" }));
    expect(saves).toEqual(['grep -q "^good" answer.txt']);
  });
});
