// NewTaskForm creates a task in a project: prompt, optional name, a backend
// override defaulting to the project's backend, model and interaction mode.
// The service's validation error is shown next to the field it concerns.

import { useEffect, useMemo, useState, type FormEvent, type KeyboardEvent } from "react";
import { wailsAgentsApi, type AgentView } from "../agents/api";
import { useApp } from "../../state/context";
import { backendInfo } from "../../state/store";
import { INTERACTION_MODES, type BackendInfo, type InteractionMode, type Project } from "../../bridge/types";
import { errorMessage } from "../../lib/errors";
import { fieldForError, type FieldKeywords } from "../../lib/fieldError";
import { cx } from "../../lib/cx";
import { InfoIcon } from "../../lib/icons";
import { Button, Field, FormError, Kbd } from "../../lib/ui";
import { BackendSelect } from "../settings/BackendSelect";
import { TaskWorktreeOptions } from "../diff/WorktreeSettings";
import { wailsGitProjectApi, type GitProjectApi } from "../diff/api";
import type { TaskGitOptions } from "../diff/types";
import { CompareAgentsPicker } from "../compare/CompareAgentsPicker";
import { wailsCompareApi, type CompareAgent, type CompareApi } from "../compare/api";
import { agentsProblem, initialAgents } from "../compare/reducers";

const DEFAULT_GIT: TaskGitOptions = { useWorktree: null, sourceBranch: "" };

type TaskField = "prompt" | "name" | "backend" | "model" | "mode" | "form";

const FIELD_KEYWORDS: FieldKeywords<TaskField> = [
  ["prompt", /prompt/i],
  ["backend", /backend|agent/i],
  ["model", /\bmodel\b/i],
  ["mode", /interaction|\bmode\b/i],
  ["name", /name/i],
];

/** taskFieldForError picks the field a TaskService.Create error belongs to. */
export function taskFieldForError(msg: string): TaskField {
  return fieldForError(msg, FIELD_KEYWORDS, "form");
}

/** modeNotice explains when the chosen mode means less than it says for a backend. */
export function modeNotice(info: BackendInfo | undefined, mode: InteractionMode): string {
  if (!info) return "";
  const caps = info.capabilities;
  const name = info.displayName || info.name;
  if (caps?.modes && caps.modes.length > 0 && !caps.modes.includes(mode)) {
    return `${name} does not support the “${mode}” mode.`;
  }
  if (mode === "ask" && caps && !caps.permissions) {
    return `${name} does not ask for permissions: in Ask mode its tools still run without asking.`;
  }
  return "";
}

export function NewTaskForm({ projectId, gitApi, compareApi }: { projectId: string; gitApi?: GitProjectApi; compareApi?: CompareApi }) {
  const project = useApp((s) => s.projects.find((p) => p.id === projectId));
  if (!project) return <div className="jc-empty">This project no longer exists.</div>;
  return <NewTaskFormBody key={project.id} project={project} gitApi={gitApi} compareApi={compareApi} />;
}

function NewTaskFormBody({ project, gitApi: gitApiProp, compareApi: compareApiProp }: { project: Project; gitApi?: GitProjectApi; compareApi?: CompareApi }) {
  const gitApi = useMemo(() => gitApiProp ?? wailsGitProjectApi(), [gitApiProp]);
  const compareApi = useMemo(() => compareApiProp ?? wailsCompareApi(), [compareApiProp]);
  const [git, setGit] = useState<TaskGitOptions>(DEFAULT_GIT);
  const backends = useApp((s) => s.backends);
  const createTask = useApp((s) => s.createTask);
  const openScreen = useApp((s) => s.openScreen);

  const [prompt, setPrompt] = useState("");
  const [name, setName] = useState("");
  const [backend, setBackend] = useState(project.defaultBackend);
  const [model, setModel] = useState("");
  const [mode, setMode] = useState<InteractionMode>("ask");
  const [errors, setErrors] = useState<Partial<Record<TaskField, string>>>({});
  const [busy, setBusy] = useState(false);
  const [startNow, setStartNow] = useState(true);
  // "Run on several agents": the same prompt on 2-5 agents, each in its own worktree.
  const [several, setSeveral] = useState(false);
  const [compareAgents, setCompareAgents] = useState<CompareAgent[]>([]);
  const agentStates = useAgentStates();
  const models = useModels(backend || project.defaultBackend);

  const info = useApp((s) => backendInfo(s, backend));
  const notice = modeNotice(info, mode);
  const isOverride = backend !== project.defaultBackend;

  async function submitSeveral() {
    const problem = agentsProblem(compareAgents);
    if (problem) {
      setErrors({ backend: problem });
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      const v = await compareApi.create({ projectId: project.id, prompt, name: name.trim(), interactionMode: mode, agents: compareAgents });
      openScreen({ kind: "compare", groupId: v.group.id });
    } catch (err) {
      const msg = errorMessage(err);
      setErrors({ [taskFieldForError(msg)]: msg });
    } finally {
      setBusy(false);
    }
  }

  async function submit(e?: FormEvent) {
    e?.preventDefault();
    if (several) return submitSeveral();
    setBusy(true);
    setErrors({});
    try {
      await createTask({
        projectId: project.id,
        prompt,
        name: name.trim(),
        backend: isOverride ? backend : "",
        model: model.trim(),
        interactionMode: mode,
      }, {
        start: startNow,
        // The git choices apply before the agent starts (its worktree is prepared then).
        beforeStart:
          git.useWorktree !== null || git.sourceBranch
            ? async (task) => {
                await gitApi.setTaskOptions(task.id, git);
              }
            : undefined,
      });
    } catch (err) {
      const msg = errorMessage(err);
      setErrors({ [taskFieldForError(msg)]: msg });
    } finally {
      setBusy(false);
    }
  }

  function onPromptKey(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
      e.preventDefault();
      void submit();
    }
  }

  const clear = (f: TaskField) => errors[f] && setErrors((x) => ({ ...x, [f]: undefined }));

  return (
    <div className="jc-page jc-page--narrow" data-testid="new-task">
      <header className="jc-page__header">
        <div className="jc-page__eyebrow">{project.name}</div>
        <h1 className="jc-page__title">New task</h1>
      </header>
      <form className="jc-form jc-card" onSubmit={submit}>
        <Field label="Prompt" error={errors.prompt}>
          <textarea
            className="jc-textarea"
            name="prompt"
            rows={7}
            placeholder="What should the agent do?"
            value={prompt}
            autoFocus
            onKeyDown={onPromptKey}
            onChange={(e) => {
              setPrompt(e.target.value);
              clear("prompt");
            }}
          />
        </Field>
        <Field label="Name" error={errors.name} hint="Optional. Defaults to the prompt's first line.">
          <input
            className="jc-input"
            name="name"
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              clear("name");
            }}
          />
        </Field>
        <label className="jc-check">
          <input
            type="checkbox"
            name="several"
            checked={several}
            disabled={!project.isGitRepo}
            onChange={(e) => {
              setSeveral(e.target.checked);
              if (e.target.checked && compareAgents.length === 0) setCompareAgents(initialAgents(backend || project.defaultBackend, backends.map((b) => b.name)));
              clear("backend");
            }}
          />
          Run on several agents{project.isGitRepo ? " (2–5, each in its own worktree, compared side by side)" : " (needs a git repository)"}
        </label>
        {several ? (
          <Field label="Agents" error={errors.backend}>
            <CompareAgentsPicker agents={compareAgents} backends={backends} onChange={setCompareAgents} />
          </Field>
        ) : null}
        <div className="jc-form__grid" hidden={several}>
          <Field
            label="Backend"
            error={errors.backend}
            hint={isOverride ? <span className="jc-override">Overrides the project default</span> : "Project default"}
          >
            <BackendSelect
              backends={backends}
              states={agentStates}
              value={backend}
              onChange={(b) => {
                setBackend(b);
                clear("backend");
              }}
            />
          </Field>
          <Field label="Model" error={errors.model}>
            <input
              className="jc-input jc-input--mono"
              name="model"
              placeholder={project.defaultModel || "backend default"}
              value={model}
              list="jc-model-options"
              spellCheck={false}
              onChange={(e) => {
                setModel(e.target.value);
                clear("model");
              }}
            />
          </Field>
          <datalist id="jc-model-options" data-testid="model-options">
            {models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name || m.id}
              </option>
            ))}
          </datalist>
        </div>
        <div className={cx("jc-field", errors.mode && "jc-field--error")}>
          <span className="jc-field__label" id="mode-label">
            Mode
          </span>
          <div className="jc-field__control">
            <div className="jc-segmented" role="radiogroup" aria-labelledby="mode-label">
              {INTERACTION_MODES.map((m) => (
                <label key={m.value} className={cx("jc-segmented__item", mode === m.value && "jc-segmented__item--on")} title={m.hint}>
                  <input
                    type="radio"
                    name="mode"
                    value={m.value}
                    checked={mode === m.value}
                    onChange={() => {
                      setMode(m.value);
                      clear("mode");
                    }}
                  />
                  {m.label}
                </label>
              ))}
            </div>
            <div className="jc-field__hint">{INTERACTION_MODES.find((m) => m.value === mode)?.hint}</div>
            {errors.mode ? (
              <div className="jc-field__error" role="alert">
                {errors.mode}
              </div>
            ) : null}
          </div>
        </div>
        <div className="jc-field-indent" hidden={several}>
          <TaskWorktreeOptions projectId={project.id} value={git} onChange={setGit} api={gitApi} />
        </div>
        {notice ? (
          <div className="jc-notice" role="status" data-testid="mode-notice">
            <InfoIcon size={14} />
            <span>{notice}</span>
          </div>
        ) : null}
        <FormError error={errors.form} />
        <div className="jc-form__actions">
          {several ? null : (
            <label className="jc-check">
              <input type="checkbox" name="start" checked={startNow} onChange={(e) => setStartNow(e.target.checked)} />
              Start the agent now
            </label>
          )}
          <span className="jc-form__shortcut">
            <Kbd>Ctrl</Kbd>
            <Kbd>Enter</Kbd>
          </span>
          <Button variant="ghost" onClick={() => openScreen({ kind: "empty" })}>
            Cancel
          </Button>
          <Button variant="primary" type="submit" busy={busy}>
            {several ? `Run on ${compareAgents.length} agents` : "Create task"}
          </Button>
        </div>
      </form>
    </div>
  );
}

/** agentState is what the new-task form says of an agent next to its name. */
export function agentState(a: AgentView): string {
  if (!a.found) return "not installed";
  if (a.signedIn === "not-signed-in") return "not signed in";
  return "installed";
}

/** useAgentStates: backend → installed / not installed / not signed in, from
 * the Agents page's last known state at once, then a fresh detection. */
function useAgentStates(): Record<string, string> {
  const [states, setStates] = useState<Record<string, string>>({});
  useEffect(() => {
    let live = true;
    const api = wailsAgentsApi();
    const apply = (list: AgentView[]) => live && list.length > 0 && setStates(Object.fromEntries(list.map((a) => [a.backend, agentState(a)])));
    api.lastKnown?.().then(apply, () => {});
    api.list().then(apply, () => {});
    return () => {
      live = false;
    };
  }, []);
  return states;
}

/** useModels: the models the agent offers (cached on the Go side); free text stays allowed. */
function useModels(backend: string): { id: string; name?: string }[] {
  const [models, setModels] = useState<{ id: string; name?: string }[]>([]);
  useEffect(() => {
    let live = true;
    setModels([]);
    if (!backend) return;
    const fn = (window as unknown as { go?: { services?: { AgentService?: { Models?: (b: string) => Promise<{ id: string; name?: string }[]> } } } }).go?.services?.AgentService?.Models;
    fn?.(backend).then((m) => live && setModels(m ?? []), () => {});
    return () => {
      live = false;
    };
  }, [backend]);
  return models;
}
