// TerminalApi is the embedded terminal's door to the Go TerminalService
// (a PTY per terminal): keystrokes and sizes go in, output and the
// program's end come back as "terminal:output" / "terminal:exit" events.

export interface TerminalOutput {
  id: string;
  /** base64 of the raw bytes ([]byte over the bridge). */
  data: string;
  /** offset: bytes the program printed before this chunk. */
  offset?: number;
}

export interface TerminalExit {
  id: string;
  code: number;
  error?: string;
}

export interface TerminalApi {
  write(id: string, data: string): Promise<void>;
  resize(id: string, cols: number, rows: number): Promise<void>;
  close(id: string): Promise<void>;
  onOutput(cb: (o: TerminalOutput) => void): () => void;
  onExit(cb: (e: TerminalExit) => void): () => void;
}

type Fn = (...args: unknown[]) => Promise<unknown>;

interface WailsWindow {
  go?: Record<string, Record<string, Record<string, Fn>>>;
  runtime?: { EventsOnMultiple?(name: string, cb: (...data: unknown[]) => void, max: number): () => void };
}

function w(): WailsWindow {
  return window as unknown as WailsWindow;
}

export function callService<T>(service: string, method: string, ...args: unknown[]): Promise<T> {
  const fn = w().go?.services?.[service]?.[method];
  if (!fn) return Promise.reject(new Error(`${service}.${method} is not available`));
  return fn(...args) as Promise<T>;
}

function on<T>(name: string, cb: (v: T) => void): () => void {
  const rt = w().runtime;
  if (!rt?.EventsOnMultiple) return () => {};
  return rt.EventsOnMultiple(name, (data: unknown) => cb(data as T), -1);
}

export const wailsTerminalApi: TerminalApi = {
  write: (id, data) => callService("TerminalService", "Write", id, data),
  resize: (id, cols, rows) => callService("TerminalService", "Resize", id, cols, rows),
  close: (id) => callService("TerminalService", "Close", id),
  onOutput: (cb) => on("terminal:output", cb),
  onExit: (cb) => on("terminal:exit", cb),
};

/** decodeBase64 turns a []byte from the bridge into bytes for xterm. */
export function decodeBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
