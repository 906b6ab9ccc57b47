import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { ProjectToolSettings, toolField } from "./ProjectToolSettings";
import type { ProjectToolSettings as Settings, ProjectToolSettingsApi } from "./toolSettingsApi";

function fakeApi(): ProjectToolSettingsApi & { saved: Settings | null } {
  const api = {
    saved: null as Settings | null,
    current: { projectId: "p1", copyGlobs: ".env*", setupCommand: "", setupRequired: false, setupUsesShell: false } as Settings,
    get: async () => api.current,
    set: async (_: string, s: Settings) => {
      if (s.copyGlobs.includes("..")) throw new Error('glob "../x": must not leave the project folder (..)');
      api.saved = s;
      api.current = { ...s, setupUsesShell: s.setupCommand.includes("&&") };
      return api.current;
    },
  };
  return api;
}

describe("ProjectToolSettings", () => {
  // Typing in a textarea is slow on a loaded machine: a longer timeout.
  test("loads, saves the globs, the command and the setting, and puts errors next to their field", { timeout: 20000 }, async () => {
    const api = fakeApi();
    const user = userEvent.setup();
    render(<ProjectToolSettings projectId="p1" api={api} />);
    const globs = await screen.findByLabelText(/Files to copy/);
    expect(globs).toHaveValue(".env*");
    await user.clear(globs);
    await user.type(globs, "../x");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByText(/must not leave the project folder/)).toBeInTheDocument();
    expect(globs).toHaveAttribute("aria-invalid", "true");

    await user.clear(globs);
    await user.type(globs, ".env*{enter}**/.env.local");
    await user.type(screen.getByLabelText("Setup command"), "npm ci && npm run build");
    await user.click(screen.getByLabelText(/only after the setup succeeded/));
    await user.click(screen.getByRole("button", { name: "Save" }));
    await screen.findByText("Saved");
    expect(api.saved).toMatchObject({ copyGlobs: ".env*\n**/.env.local", setupCommand: "npm ci && npm run build", setupRequired: true });
    expect(screen.getByText(/runs under \/bin\/sh -c/)).toBeInTheDocument();
  });

  test("toolField routes errors", () => {
    expect(toolField('glob "/x": must be relative')).toBe("globs");
    expect(toolField("the setup command does not parse")).toBe("command");
    expect(toolField("database is locked")).toBe("form");
  });
});
