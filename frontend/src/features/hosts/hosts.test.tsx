import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HostsScreen } from "./HostsScreen";
import { ProjectHostSetting } from "./ProjectHostSetting";
import { createFakeHostsApi } from "./fake";

describe("HostsScreen", () => {
  test("lists config hosts, checks one, installs an agent CLI there", async () => {
    const user = userEvent.setup();
    const api = createFakeHostsApi();
    render(<HostsScreen api={api} />);
    const card = await screen.findByTestId("host-build");
    expect(within(card).getByText(/~\/\.ssh\/config · dev@build\.example\.com · via bastion/)).toBeInTheDocument();
    expect(within(card).getByText("Not checked yet.")).toBeInTheDocument();
    await user.click(within(card).getByRole("button", { name: "Check" }));
    expect(await within(card).findByText("linux/amd64")).toBeInTheDocument();
    expect(within(card).getByText("2.39.5")).toBeInTheDocument();
    expect(within(card).getByText("64.0 GB")).toBeInTheDocument();
    expect(within(card).getByText("2.1.330 (Claude Code)")).toBeInTheDocument();
    await user.click(within(card).getByRole("button", { name: "Install opencode-ai@1.18.33" }));
    expect(await within(card).findByText("added 1 package")).toBeInTheDocument();
    expect(api.calls).toEqual(["check build", "install build opencode"]);
  });

  test("adds a host by hand; an unreachable one says why; a bad name is refused", async () => {
    const user = userEvent.setup();
    const api = createFakeHostsApi();
    render(<HostsScreen api={api} />);
    await screen.findByTestId("host-build");
    await user.type(screen.getByTestId("host-name"), "-oProxyCommand=x");
    await user.click(screen.getByRole("button", { name: "Add" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("starts with '-'");
    await user.clear(screen.getByTestId("host-name"));
    await user.type(screen.getByTestId("host-name"), "me@gpu-box");
    await user.click(screen.getByRole("button", { name: "Add" }));
    const card = await screen.findByTestId("host-me@gpu-box");
    await user.click(within(card).getByRole("button", { name: "Check" }));
    expect(await within(card).findByTestId("host-unreachable")).toHaveTextContent("Could not resolve hostname");
    await user.click(within(card).getByRole("button", { name: "Remove" }));
    expect(api.calls).toContain("remove me@gpu-box");
  });
});

describe("ProjectHostSetting", () => {
  test("moves a project to a host at a path", async () => {
    const user = userEvent.setup();
    const api = createFakeHostsApi();
    render(<ProjectHostSetting projectId="p1" api={api} />);
    await screen.findByRole("option", { name: "build" });
    await user.selectOptions(screen.getByRole("combobox"), "build");
    await user.type(screen.getByPlaceholderText("/home/me/src/app"), "/srv/app");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByRole("button", { name: "Saved" })).toBeInTheDocument();
    expect(api.calls).toEqual(["set p1 build /srv/app"]);
  });
});
