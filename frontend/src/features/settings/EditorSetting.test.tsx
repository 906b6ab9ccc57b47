import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { act } from "react";
import { EditorSetting } from "./EditorSetting";

// The Go binding stands in: the stored editor arrives when the test says so.
const bridge = vi.hoisted(() => ({
  arrive: (_v: string) => {},
  fail: (_e: unknown) => {},
  saves: [] as string[],
  asked: false,
}));
vi.mock("../../bridge/wailsjs/go/services/OpenService", () => ({
  GetEditor: () =>
    new Promise<string>((resolve, reject) => {
      bridge.asked = true;
      bridge.arrive = resolve;
      bridge.fail = reject;
    }),
  SetEditor: async (v: string) => void bridge.saves.push(v),
}));

beforeEach(() => {
  bridge.saves = [];
  bridge.asked = false;
});

// answer settles the stored editor's read once the component has asked.
async function answer(settle: () => void) {
  await vi.waitFor(() => expect(bridge.asked).toBe(true));
  await act(async () => settle());
}

describe("EditorSetting", () => {
  test("shows the stored editor", async () => {
    render(<EditorSetting />);
    await answer(() => bridge.arrive("code"));
    expect(screen.getByLabelText("Editor")).toHaveValue("code");
    expect(bridge.saves).toEqual([]);
  });

  // The same race as the check command's: a choice made on a slow start was
  // saved, but the late load put the old one back on screen.
  test("a choice made before the stored one arrives stays on screen", async () => {
    const user = userEvent.setup();
    render(<EditorSetting />);
    await user.selectOptions(screen.getByLabelText("Editor"), "xdg-open");
    await answer(() => bridge.arrive("code"));
    expect(screen.getByLabelText("Editor")).toHaveValue("xdg-open");
    expect(bridge.saves).toEqual(["xdg-open"]);
  });

  test("a setting that cannot be read says so", async () => {
    render(<EditorSetting />);
    await answer(() => bridge.fail(new Error("database is locked")));
    expect(screen.getByRole("alert")).toHaveTextContent("Could not read the editor setting: database is locked");
  });
});
