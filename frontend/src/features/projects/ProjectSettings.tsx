// ProjectSettings: rename, default backend and model, and removal (with a
// confirm step). Every save shows the service's error next to its field.

import { useEffect, useState, type FormEvent } from "react";
import { useApp } from "../../state/context";
import { backendInfo } from "../../state/store";
import type { Project } from "../../bridge/types";
import { errorMessage } from "../../lib/errors";
import { GitIcon, FolderIcon, TrashIcon } from "../../lib/icons";
import { Button, Field } from "../../lib/ui";
import { BackendSelect, CapabilityList } from "../settings/BackendSelect";
import { WorktreeSettings } from "../diff/WorktreeSettings";
import { ProjectHostSetting } from "../hosts/ProjectHostSetting";
import { PermissionRules } from "./PermissionRules";
import { ProjectToolSettings } from "./ProjectToolSettings";
import { CheckCommandSettings } from "../compare/CheckCommandSettings";

export function ProjectSettings({ projectId }: { projectId: string }) {
  const project = useApp((s) => s.projects.find((p) => p.id === projectId));
  if (!project) return <div className="jc-empty">This project no longer exists.</div>;
  return <ProjectSettingsBody key={project.id} project={project} />;
}

function useSaved() {
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!saved) return;
    const t = setTimeout(() => setSaved(false), 1500);
    return () => clearTimeout(t);
  }, [saved]);
  return [saved, setSaved] as const;
}

function ProjectSettingsBody({ project }: { project: Project }) {
  const backends = useApp((s) => s.backends);
  const renameProject = useApp((s) => s.renameProject);
  const setProjectBackend = useApp((s) => s.setProjectBackend);
  const setProjectModel = useApp((s) => s.setProjectModel);
  const removeProject = useApp((s) => s.removeProject);
  const info = useApp((s) => backendInfo(s, project.defaultBackend));

  const [name, setName] = useState(project.name);
  const [nameError, setNameError] = useState("");
  const [nameSaved, setNameSaved] = useSaved();
  const [backendError, setBackendError] = useState("");
  const [backendSaved, setBackendSaved] = useSaved();
  const [model, setModel] = useState(project.defaultModel);
  const [modelError, setModelError] = useState("");
  const [modelSaved, setModelSaved] = useSaved();
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [removeError, setRemoveError] = useState("");

  async function saveName(e: FormEvent) {
    e.preventDefault();
    setNameError("");
    try {
      await renameProject(project.id, name);
      setNameSaved(true);
    } catch (err) {
      setNameError(errorMessage(err));
    }
  }

  async function saveBackend(b: string) {
    setBackendError("");
    try {
      await setProjectBackend(project.id, b);
      setBackendSaved(true);
    } catch (err) {
      setBackendError(errorMessage(err));
    }
  }

  async function saveModel(e: FormEvent) {
    e.preventDefault();
    setModelError("");
    try {
      await setProjectModel(project.id, model.trim());
      setModelSaved(true);
    } catch (err) {
      setModelError(errorMessage(err));
    }
  }

  async function remove() {
    setRemoveError("");
    try {
      await removeProject(project.id);
    } catch (err) {
      setRemoveError(errorMessage(err));
    }
  }

  return (
    <div className="jc-page" data-testid="project-settings">
      <header className="jc-page__header">
        <div className="jc-page__eyebrow">Project settings</div>
        <h1 className="jc-page__title">{project.name}</h1>
        <div className="jc-page__meta">
          {project.isGitRepo ? <GitIcon size={13} /> : <FolderIcon size={13} />}
          <code>{project.path}</code>
          {project.isGitRepo ? <span className="jc-chip">git</span> : <span className="jc-chip jc-chip--muted">not a git repo</span>}
        </div>
      </header>

      <section className="jc-card">
        <h2 className="jc-card__title">General</h2>
        <form className="jc-row-form" onSubmit={saveName}>
          <Field label="Name" error={nameError}>
            <input className="jc-input" name="name" value={name} onChange={(e) => setName(e.target.value)} />
          </Field>
          <Button type="submit" disabled={name === project.name}>
            {nameSaved ? "Saved" : "Rename"}
          </Button>
        </form>
      </section>

      <section className="jc-card">
        <h2 className="jc-card__title">Agent</h2>
        <p className="jc-card__desc">New tasks in this project use this backend and model unless the task overrides them.</p>
        <Field
          label="Default backend"
          error={backendError}
          hint={backendSaved ? <span className="jc-saved">Saved</span> : undefined}
        >
          <BackendSelect backends={backends} value={project.defaultBackend} onChange={(b) => void saveBackend(b)} />
        </Field>
        <div className="jc-field-indent">
          <CapabilityList info={info} />
        </div>
        <form className="jc-row-form" onSubmit={saveModel}>
          <Field label="Default model" error={modelError} hint="Empty uses the backend's own default.">
            <input
              className="jc-input jc-input--mono"
              name="model"
              placeholder="e.g. sonnet, opus, anthropic/claude-sonnet-4"
              value={model}
              onChange={(e) => setModel(e.target.value)}
              spellCheck={false}
            />
          </Field>
          <Button type="submit" disabled={model.trim() === project.defaultModel}>
            {modelSaved ? "Saved" : "Save"}
          </Button>
        </form>
      </section>

      <section className="jc-card">
        <h2 className="jc-card__title">Where it runs</h2>
        <p className="jc-card__desc">A project can live on an SSH host: git and its agents then run there.</p>
        <ProjectHostSetting projectId={project.id} />
      </section>

      {project.isGitRepo ? (
        <section className="jc-card">
          <h2 className="jc-card__title">Git worktrees</h2>
          <p className="jc-card__desc">Each task can work in its own worktree and branch, so agents don't step on each other.</p>
          <WorktreeSettings projectId={project.id} />
        </section>
      ) : null}

      <section className="jc-card" aria-label="Worktree setup and checks">
        <h2 className="jc-card__title">Worktree setup</h2>
        <p className="jc-card__desc">Make each task's new worktree ready to work in: copy the files git does not carry, then run a setup command.</p>
        <ProjectToolSettings projectId={project.id} />
      </section>
      {project.isGitRepo ? (
        <section className="jc-card">
          <h2 className="jc-card__title">Check command</h2>
          <p className="jc-card__desc">When agents are compared on one prompt, this runs in each one's worktree as it finishes.</p>
          <CheckCommandSettings projectId={project.id} />
        </section>
      ) : null}

      <section className="jc-card">
        <h2 className="jc-card__title">Permission rules</h2>
        <p className="jc-card__desc">What agents may do without asking, as allowed with “Always”. Revoke a rule to be asked again.</p>
        <PermissionRules projectId={project.id} />
      </section>

      <section className="jc-card jc-card--danger">
        <h2 className="jc-card__title">Remove project</h2>
        <p className="jc-card__desc">
          Removes the project and its tasks from Jean-Claude. The folder on disk is not touched.
        </p>
        {confirmRemove ? (
          <div className="jc-confirm" role="group" aria-label="Confirm removal">
            <span>Remove “{project.name}” and all its tasks?</span>
            <Button variant="ghost" onClick={() => setConfirmRemove(false)}>
              Cancel
            </Button>
            <Button variant="danger" onClick={() => void remove()}>
              Yes, remove
            </Button>
          </div>
        ) : (
          <Button variant="danger" onClick={() => setConfirmRemove(true)}>
            <TrashIcon size={14} />
            Remove project…
          </Button>
        )}
        {removeError ? <div className="jc-field__error" role="alert">{removeError}</div> : null}
      </section>
    </div>
  );
}
