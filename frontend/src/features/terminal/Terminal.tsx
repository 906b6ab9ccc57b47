// Terminal is the reusable embedded terminal: xterm.js (@xterm/xterm)
// over a Go PTY. It subscribes to output before it starts the program, so
// nothing printed early is lost, and closes (kills) the program when it
// unmounts. The agents' sign-in uses it; a task's shell can too.

import { useEffect, useRef } from "react";
import { Terminal as XTerm } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { decodeBase64, type TerminalApi, type TerminalExit } from "./api";
import "./terminal.css";

export interface TerminalProps {
  api: TerminalApi;
  /** start runs the program in a PTY of cols×rows and returns its id. */
  start(cols: number, rows: number): Promise<string>;
  cols?: number;
  rows?: number;
  onExit?(e: TerminalExit): void;
  onError?(message: string): void;
  /** onOutput sees the decoded text (e.g. to recognize "signed in"). */
  onText?(text: string): void;
}

export function Terminal({ api, start, cols = 100, rows = 26, onExit, onError, onText }: TerminalProps) {
  const el = useRef<HTMLDivElement>(null);
  const cbs = useRef({ onExit, onError, onText });
  cbs.current = { onExit, onError, onText };

  useEffect(() => {
    if (!el.current) return;
    const term = new XTerm({ cols, rows, convertEol: false, cursorBlink: true, fontSize: 13, scrollback: 2000 });
    term.open(el.current);
    term.focus();
    let id: string | null = null;
    let ended = false;
    const early: { id: string; data: string }[] = [];
    const decoder = new TextDecoder();
    const write = (data: string) => {
      const bytes = decodeBase64(data);
      term.write(bytes);
      cbs.current.onText?.(decoder.decode(bytes, { stream: true }));
    };
    const offOut = api.onOutput((o) => {
      if (id === null) early.push(o);
      else if (o.id === id) write(o.data);
    });
    const offExit = api.onExit((e) => {
      if (e.id !== id) return;
      ended = true;
      term.write(`\r\n\x1b[2m[exited with code ${e.code}]\x1b[0m\r\n`);
      cbs.current.onExit?.(e);
    });
    const offData = term.onData((d) => {
      if (id && !ended) void api.write(id, d).catch(() => {});
    });
    let alive = true;
    start(cols, rows)
      .then((got) => {
        if (!alive) {
          void api.close(got).catch(() => {});
          return;
        }
        id = got;
        for (const o of early.splice(0)) if (o.id === got) write(o.data);
      })
      .catch((e: unknown) => {
        const msg = e instanceof Error ? e.message : String(e);
        term.write(`\x1b[31m${msg}\x1b[0m\r\n`);
        cbs.current.onError?.(msg);
      });
    return () => {
      alive = false;
      offOut();
      offExit();
      offData.dispose();
      if (id && !ended) void api.close(id).catch(() => {});
      term.dispose();
    };
    // The program starts once per mount.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api]);

  return <div className="jc-terminal" ref={el} data-testid="terminal" />;
}
