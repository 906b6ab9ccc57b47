import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { TaskLifetimeSetting, type TaskLifetime, type TaskLifetimeApi } from "./TaskLifetimeSetting";

function fakeApi(initial: TaskLifetime): TaskLifetimeApi & { saved: TaskLifetime[] } {
  const api = {
    saved: [] as TaskLifetime[],
    get: async () => initial,
    set: async (t: TaskLifetime) => {
      if (t.onQuit === "bad") throw new Error("on quit must be one of [ask keep stop]");
      api.saved.push(t);
    },
  };
  return api;
}

describe("TaskLifetimeSetting", () => {
  test("loads, turns relays on (effective at the next start) and picks the quit behaviour", async () => {
    const api = fakeApi({ keepRunning: false, onQuit: "stop" });
    const user = userEvent.setup();
    render(<TaskLifetimeSetting api={api} />);
    const box = await screen.findByLabelText("Keep tasks running when the app closes");
    const quit = screen.getByLabelText("When quitting with tasks running");
    expect(box).not.toBeChecked();
    expect(quit).toBeDisabled();
    await user.click(box);
    expect(api.saved.at(-1)).toEqual({ keepRunning: true, onQuit: "stop" });
    expect(screen.getByText(/Takes effect at the next start/)).toBeInTheDocument();
    expect(quit).toBeEnabled();
    await user.selectOptions(quit, "ask");
    expect(api.saved.at(-1)).toEqual({ keepRunning: true, onQuit: "ask" });
  });

  test("before the service answers it shows the default: relays on, stop on quit", () => {
    const api: TaskLifetimeApi = { get: () => new Promise<TaskLifetime>(() => {}), set: async () => {} };
    render(<TaskLifetimeSetting api={api} />);
    expect(screen.getByLabelText("Keep tasks running when the app closes")).toBeChecked();
    expect(screen.getByLabelText("When quitting with tasks running")).toHaveValue("stop");
  });

  test("shows a saved setting and the service's error", async () => {
    const api = fakeApi({ keepRunning: true, onQuit: "keep" });
    api.set = async () => {
      throw new Error("database is locked");
    };
    const user = userEvent.setup();
    render(<TaskLifetimeSetting api={api} />);
    const quit = await screen.findByLabelText("When quitting with tasks running");
    await screen.findByDisplayValue("Keep them running");
    expect(screen.getByLabelText("Keep tasks running when the app closes")).toBeChecked();
    expect(screen.queryByText(/Takes effect at the next start/)).not.toBeInTheDocument();
    await user.selectOptions(quit, "stop");
    expect(await screen.findByRole("alert")).toHaveTextContent("database is locked");
  });
});
