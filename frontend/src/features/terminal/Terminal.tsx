// Terminal is the reusable embedded terminal: xterm.js (@xterm/xterm)
// over a Go PTY. It subscribes to output before it starts (or attaches
// to) the program, so nothing printed early is lost. The agents' sign-in
// starts a program and closes it on unmount; a task's shell (TaskTerminals)
// attaches to a shell that outlives the view: its kept scrollback is
// replayed first, then the live output from the offset the replay ended
// at, and unmounting leaves the shell running (keepAlive).

import { useEffect, useRef } from "react";
import { Terminal as XTerm } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import "@xterm/xterm/css/xterm.css";
import { decodeBase64, type TerminalApi, type TerminalExit, type TerminalOutput } from "./api";
import "./terminal.css";

/** Attached is a running program to show: its id and kept output. */
export interface Attached {
  id: string;
  /** replay is the scrollback (base64) and the output offset it ends at. */
  replay?: { data: string; end: number };
}

export interface TerminalProps {
  api: TerminalApi;
  /** start runs (or finds) the program in a PTY of cols×rows and returns its id. */
  start(cols: number, rows: number): Promise<string | Attached>;
  cols?: number;
  rows?: number;
  /** fit sizes the terminal to its box and follows the box's size. */
  fit?: boolean;
  /** keepAlive leaves the program running when the terminal unmounts. */
  keepAlive?: boolean;
  onExit?(e: TerminalExit): void;
  onError?(message: string): void;
  /** onOutput sees the decoded text (e.g. to recognize "signed in"). */
  onText?(text: string): void;
}

/** unseen is the part of chunk o not already shown by a replay ending at end. */
export function unseen(o: TerminalOutput, bytes: Uint8Array, end: number): Uint8Array {
  if (o.offset === undefined || end <= 0) return bytes;
  if (o.offset + bytes.length <= end) return bytes.subarray(bytes.length);
  if (o.offset < end) return bytes.subarray(end - o.offset);
  return bytes;
}

export function Terminal({ api, start, cols = 100, rows = 26, fit = false, keepAlive = false, onExit, onError, onText }: TerminalProps) {
  const el = useRef<HTMLDivElement>(null);
  const cbs = useRef({ onExit, onError, onText });
  cbs.current = { onExit, onError, onText };

  useEffect(() => {
    if (!el.current) return;
    const term = new XTerm({ cols, rows, convertEol: false, cursorBlink: true, fontSize: 13, scrollback: 5000 });
    const fitter = fit ? new FitAddon() : null;
    if (fitter) term.loadAddon(fitter);
    term.open(el.current);
    if (fitter) safeFit(fitter);
    term.focus();
    let id: string | null = null;
    let ended = false;
    let replayEnd = 0;
    const early: TerminalOutput[] = [];
    const decoder = new TextDecoder();
    const write = (o: TerminalOutput) => {
      const bytes = unseen(o, decodeBase64(o.data), replayEnd);
      if (bytes.length === 0) return;
      term.write(bytes);
      cbs.current.onText?.(decoder.decode(bytes, { stream: true }));
    };
    const offOut = api.onOutput((o) => {
      if (id === null) early.push(o);
      else if (o.id === id) write(o);
    });
    const offExit = api.onExit((e) => {
      if (e.id !== id) return;
      ended = true;
      term.write(`\r\n\x1b[2m[exited with code ${e.code}]\x1b[0m\r\n`);
      cbs.current.onExit?.(e);
    });
    // Keystrokes go one write at a time, in order: each bridge call may run
    // concurrently on the Go side, so fast typing could otherwise arrive
    // shuffled. What is typed meanwhile is sent together next.
    let pending = "";
    let inflight = false;
    const flush = () => {
      if (inflight || pending === "" || !id || ended) return;
      const d = pending;
      pending = "";
      inflight = true;
      void api
        .write(id, d)
        .catch(() => {})
        .finally(() => {
          inflight = false;
          flush();
        });
    };
    const offData = term.onData((d) => {
      pending += d;
      flush();
    });
    const offResize = term.onResize(({ cols: c, rows: r }) => {
      if (id && !ended) void api.resize(id, c, r).catch(() => {});
    });
    const observer = fitter && typeof ResizeObserver !== "undefined" ? new ResizeObserver(() => safeFit(fitter)) : null;
    if (observer) observer.observe(el.current);
    let alive = true;
    start(term.cols, term.rows)
      .then((got) => {
        const a: Attached = typeof got === "string" ? { id: got } : got;
        if (!alive) {
          if (!keepAlive) void api.close(a.id).catch(() => {});
          return;
        }
        id = a.id;
        if (a.replay) {
          const bytes = decodeBase64(a.replay.data);
          term.write(bytes);
          cbs.current.onText?.(decoder.decode(bytes, { stream: true }));
          replayEnd = a.replay.end;
        }
        for (const o of early.splice(0)) if (o.id === a.id) write(o);
        flush(); // anything typed before the program was there
        void api.resize(a.id, term.cols, term.rows).catch(() => {});
      })
      .catch((e: unknown) => {
        const msg = e instanceof Error ? e.message : String(e);
        term.write(`\x1b[31m${msg}\x1b[0m\r\n`);
        cbs.current.onError?.(msg);
      });
    return () => {
      alive = false;
      observer?.disconnect();
      offOut();
      offExit();
      offData.dispose();
      offResize.dispose();
      if (id && !ended && !keepAlive) void api.close(id).catch(() => {});
      term.dispose();
    };
    // The program starts once per mount.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api]);

  return <div className={`jc-terminal${fit ? " jc-terminal--fit" : ""}`} ref={el} data-testid="terminal" />;
}

function safeFit(f: FitAddon) {
  try {
    f.fit();
  } catch {
    // not laid out yet (hidden): the next resize fits it
  }
}
