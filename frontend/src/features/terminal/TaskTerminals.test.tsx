import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useEffect } from "react";
import { unseen, type TerminalProps } from "./Terminal";
import { TaskTerminals } from "./TaskTerminals";
import type { TerminalApi, TerminalOutput } from "./api";
import type { TaskTerminalApi } from "./taskApi";

// xterm.js needs a real browser (canvas, layout): the e2e test drives it;
// here a stand-in starts (or attaches) like the real one does.
vi.mock("./Terminal", async (orig) => {
  const real = await orig<typeof import("./Terminal")>();
  function FakeTerminal({ start }: TerminalProps) {
    useEffect(() => {
      void start(80, 24);
      // eslint-disable-next-line react-hooks/exhaustive-deps
    }, []);
    return <div data-testid="terminal" />;
  }
  return { ...real, Terminal: FakeTerminal };
});

const b64 = (s: string) => btoa(s);

function fakes() {
  const closed: string[] = [];
  const opened: string[] = [];
  const api: TerminalApi = {
    write: async () => {},
    resize: async () => {},
    close: async (id) => void closed.push(id),
    onOutput: () => () => {},
    onExit: () => () => {},
  };
  const existing = [{ id: "t1", title: "bash 1", cols: 80, rows: 24, startedAt: 1, taskId: "task" }];
  const taskApi: TaskTerminalApi = {
    list: async () => existing,
    open: async (taskId) => {
      const id = `t${existing.length + opened.length + 1}`;
      opened.push(id);
      return { id, title: `bash ${existing.length + opened.length}`, cols: 80, rows: 24, startedAt: 2, taskId };
    },
    snapshot: async (id) => ({ id, data: b64("kept output\r\n"), end: 13 }),
  };
  return { api, taskApi, closed, opened };
}

describe("TaskTerminals", () => {
  test("shows the task's open shells as tabs, opens another, and closes one (ending it)", async () => {
    const f = fakes();
    const user = userEvent.setup();
    render(<TaskTerminals taskId="task" api={f.api} taskApi={f.taskApi} />);
    expect(await screen.findByRole("button", { name: "bash 1" })).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "New terminal" }));
    await waitFor(() => expect(f.opened).toEqual(["t2"]));
    expect(await screen.findByRole("button", { name: "bash 2" })).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Close bash 1" }));
    expect(f.closed).toEqual(["t1"]);
    expect(screen.queryByRole("button", { name: "bash 1" })).toBeNull();
  });

  test("unseen skips what a replay already showed", () => {
    const o = (offset: number, s: string): [TerminalOutput, Uint8Array] => [{ id: "x", data: "", offset }, new TextEncoder().encode(s)];
    const dec = (u: Uint8Array) => new TextDecoder().decode(u);
    expect(dec(unseen(...o(0, "hello"), 5))).toBe("");
    expect(dec(unseen(...o(3, "lo world"), 5))).toBe(" world");
    expect(dec(unseen(...o(5, "next"), 5))).toBe("next");
    expect(dec(unseen(...o(0, "no replay"), 0))).toBe("no replay");
  });
});
