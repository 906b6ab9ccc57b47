// SignInDialog signs an agent in from the app: the CLI's own login
// command runs in the embedded terminal (Terminal), or an API key is saved
// in the agent's settings (kept in the OS keyring). Anything can ask for a
// sign-in with useSignIn()(backend); the promise resolves true once the
// agent is signed in, false when the user cancels. <SignInHost/> (mounted
// once, in App) shows the dialog. The terminal (xterm.js, ~340 KB) is its
// own chunk, fetched when a sign-in dialog first shows it, not at startup
// (issue 20).

import { Suspense, useCallback, useEffect, useState } from "react";
import { callService, wailsTerminalApi, type TerminalApi } from "../terminal/api";
import { lazyScreen } from "../../lib/lazyScreen";
import { CloseIcon } from "../../lib/icons";
import { Button, Field, IconButton } from "../../lib/ui";

const Terminal = lazyScreen(() => import("../terminal/Terminal").then((m) => m.Terminal));

interface Pending {
  backend: string;
  resolve(ok: boolean): void;
}

let current: Pending | null = null;
const listeners = new Set<(p: Pending | null) => void>();

function publish(p: Pending | null) {
  current = p;
  for (const l of listeners) l(p);
}

/** requestSignIn opens the sign-in dialog for backend. */
export function requestSignIn(backend: string): Promise<boolean> {
  current?.resolve(false);
  return new Promise((resolve) => publish({ backend, resolve }));
}

export function useSignIn(): (backend: string) => Promise<boolean> {
  return useCallback((backend: string) => requestSignIn(backend), []);
}

interface AgentInfo {
  displayName: string;
  signIn?: { args?: string[] | null; keyVar?: string };
  settings: { env: Record<string, string> } & Record<string, unknown>;
}

export function SignInHost({ api = wailsTerminalApi }: { api?: TerminalApi }) {
  const [pending, setPending] = useState<Pending | null>(current);
  useEffect(() => {
    listeners.add(setPending);
    return () => {
      listeners.delete(setPending);
    };
  }, []);
  if (!pending) return null;
  const finish = (ok: boolean) => {
    pending.resolve(ok);
    publish(null);
  };
  return <SignInDialog key={pending.backend} backend={pending.backend} api={api} onDone={finish} />;
}

export function SignInDialog({ backend, api, onDone }: { backend: string; api: TerminalApi; onDone(ok: boolean): void }) {
  const [agent, setAgent] = useState<AgentInfo | null>(null);
  const [command, setCommand] = useState("");
  const [state, setState] = useState<"running" | "signed-in" | "failed">("running");
  const [key, setKey] = useState("");
  const [error, setError] = useState("");
  useEffect(() => {
    callService<AgentInfo>("AgentService", "Get", backend).then(setAgent, (e: unknown) => setError(String(e)));
  }, [backend]);
  const name = agent?.displayName ?? backend;
  const hasLogin = (agent?.signIn?.args?.length ?? 0) > 0;
  const keyVar = agent?.signIn?.keyVar ?? "";

  const start = useCallback(
    (cols: number, rows: number) =>
      callService<{ id: string; command: string }>("TerminalService", "StartSignIn", backend, cols, rows).then((r) => {
        setCommand(r.command);
        return r.id;
      }),
    [backend],
  );

  async function saveKey() {
    if (!agent || !key.trim()) return;
    setError("");
    try {
      const settings = { ...agent.settings, env: { ...(agent.settings.env ?? {}), [keyVar]: key.trim() } };
      await callService("AgentService", "SaveSettings", backend, settings);
      onDone(true);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  return (
    <div className="jc-modal-backdrop">
      <div className="jc-modal jc-modal--wide" role="dialog" aria-modal="true" aria-labelledby="sign-in-title" data-testid="sign-in-dialog">
        <header className="jc-modal__header">
          <h2 id="sign-in-title">Sign in to {name}</h2>
          <IconButton label="Close" onClick={() => onDone(false)}>
            <CloseIcon size={14} />
          </IconButton>
        </header>
        <div className="jc-modal__body">
          {agent && hasLogin ? (
            <>
              <p className="jc-meta">
                {name}'s own sign-in runs below{command ? ` (${command})` : ""}. Follow its steps; it may open your browser.
              </p>
              <Suspense fallback={<div className="jc-task-view__loading">Loading the terminal…</div>}>
                <Terminal
                  api={api}
                  start={start}
                  cols={92}
                  rows={18}
                  onExit={(e) => {
                    if (e.code === 0) {
                      setState("signed-in");
                      setTimeout(() => onDone(true), 400);
                    } else setState("failed");
                  }}
                  onError={(m) => {
                    setState("failed");
                    setError(m);
                  }}
                />
              </Suspense>
              {state === "signed-in" ? <p role="status">Signed in.</p> : null}
              {state === "failed" ? <p role="alert" className="jc-field__error">The sign-in did not finish. Try again, or use an API key.</p> : null}
            </>
          ) : null}
          {agent && keyVar ? (
            <form
              className="jc-form"
              onSubmit={(e) => {
                e.preventDefault();
                void saveKey();
              }}
            >
              <Field label={`${hasLogin ? "Or use an API key" : "API key"} (${keyVar}, kept in your keyring)`} error={error}>
                <input
                  className="jc-input jc-input--mono"
                  type="password"
                  name="apiKey"
                  autoComplete="off"
                  value={key}
                  onChange={(e) => setKey(e.target.value)}
                />
              </Field>
              <div className="jc-form__actions">
                <Button variant="ghost" onClick={() => onDone(false)}>
                  Cancel
                </Button>
                <Button variant="primary" type="submit" disabled={!key.trim()}>
                  Save key
                </Button>
              </div>
            </form>
          ) : error ? (
            <p role="alert" className="jc-field__error">{error}</p>
          ) : null}
        </div>
      </div>
    </div>
  );
}
