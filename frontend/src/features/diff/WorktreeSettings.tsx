// Worktree settings of a project (whether tasks get their own git worktree,
// where worktrees go, which branch tasks start from), and the per-task
// override shown in the new-task form. Both talk to the GitService through
// a GitProjectApi so tests can pass a fake; errors from the service are
// shown next to the field they concern.

import { useEffect, useMemo, useState, type FormEvent } from "react";
import { Button, Field, FormError } from "../../lib/ui";
import { errorMessage } from "../../lib/errors";
import { wailsGitProjectApi, type GitProjectApi } from "./api";
import type { Branch, ProjectGitSettings, TaskGitOptions } from "./types";
import "./diff.css";

/** settingsField picks the field a SetProjectSettings error belongs to. */
export function settingsField(msg: string): "root" | "branch" | "form" {
  const m = msg.toLowerCase();
  if (m.includes("folder") || m.includes("path")) return "root";
  if (m.includes("branch")) return "branch";
  return "form";
}

export function WorktreeSettings({ projectId, api: apiProp }: { projectId: string; api?: GitProjectApi }) {
  const api = useMemo(() => apiProp ?? wailsGitProjectApi(), [apiProp]);
  const [settings, setSettings] = useState<ProjectGitSettings | null>(null);
  const [branches, setBranches] = useState<Branch[]>([]);
  const [enabled, setEnabled] = useState(true);
  const [root, setRoot] = useState("");
  const [branch, setBranch] = useState("");
  const [errors, setErrors] = useState<{ root?: string; branch?: string; form?: string }>({});
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let alive = true;
    Promise.all([api.projectSettings(projectId), api.branches(projectId)])
      .then(([s, bs]) => {
        if (!alive) return;
        setSettings(s);
        setEnabled(s.worktreesEnabled);
        setRoot(s.worktreeRoot);
        setBranch(s.defaultSourceBranch);
        setBranches(bs);
      })
      .catch((err) => alive && setErrors({ form: errorMessage(err) }));
    return () => {
      alive = false;
    };
  }, [api, projectId]);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (!settings) return;
    setErrors({});
    setSaved(false);
    setBusy(true);
    try {
      const s = await api.setProjectSettings(projectId, { ...settings, worktreesEnabled: enabled, worktreeRoot: root.trim(), defaultSourceBranch: branch });
      setSettings(s);
      setRoot(s.worktreeRoot);
      setSaved(true);
    } catch (err) {
      const msg = errorMessage(err);
      setErrors({ [settingsField(msg)]: msg });
    } finally {
      setBusy(false);
    }
  }

  if (!settings) return <FormError error={errors.form} />;
  if (!settings.isGitRepo) {
    return <p className="jc-diff-hint">This project is not a git repository: tasks run in the project folder.</p>;
  }
  const current = branches.find((b) => b.current)?.name;
  return (
    <form className="jc-worktree-settings" onSubmit={save} aria-label="Worktree settings">
      <label className="jc-worktree-check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Run each task in its own git worktree
      </label>
      <Field label="Worktree folder" error={errors.root} hint={`Empty: ${settings.defaultWorktreeRoot}`}>
        <input type="text" value={root} placeholder={settings.defaultWorktreeRoot} onChange={(e) => setRoot(e.target.value)} />
      </Field>
      <Field label="Tasks start from" error={errors.branch}>
        <select value={branch} onChange={(e) => setBranch(e.target.value)}>
          <option value="">Current branch{current ? ` (${current})` : ""}</option>
          {branches.map((b) => (
            <option key={b.name} value={b.name}>
              {b.name}
            </option>
          ))}
        </select>
      </Field>
      <FormError error={errors.form} />
      <div>
        <Button type="submit" size="sm" busy={busy}>
          Save worktree settings
        </Button>
        {saved ? <span className="jc-diff-hint"> Saved</span> : null}
      </div>
    </form>
  );
}

export interface TaskWorktreeOptionsProps {
  projectId: string;
  value: TaskGitOptions;
  onChange(v: TaskGitOptions): void;
  api?: GitProjectApi;
}

/**
 * TaskWorktreeOptions is the new-task form's part: use a worktree or not
 * (defaulting to the project's setting) and the source branch. The form
 * calls api.setTaskOptions(taskId, value) after creating the task.
 */
export function TaskWorktreeOptions({ projectId, value, onChange, api: apiProp }: TaskWorktreeOptionsProps) {
  const api = useMemo(() => apiProp ?? wailsGitProjectApi(), [apiProp]);
  const [settings, setSettings] = useState<ProjectGitSettings | null>(null);
  const [branches, setBranches] = useState<Branch[]>([]);
  useEffect(() => {
    let alive = true;
    Promise.all([api.projectSettings(projectId), api.branches(projectId)])
      .then(([s, bs]) => {
        if (alive) {
          setSettings(s);
          setBranches(bs);
        }
      })
      .catch(() => {
        /* no git service: the form works without these options */
      });
    return () => {
      alive = false;
    };
  }, [api, projectId]);
  if (!settings?.isGitRepo) return null;
  const effective = value.useWorktree ?? settings.worktreesEnabled;
  const fallback = settings.defaultSourceBranch || branches.find((b) => b.current)?.name || "";
  return (
    <fieldset className="jc-worktree-options">
      <legend>Git</legend>
      <label>
        <input
          type="checkbox"
          checked={effective}
          onChange={(e) => onChange({ ...value, useWorktree: e.target.checked === settings.worktreesEnabled ? null : e.target.checked })}
        />{" "}
        Own worktree{value.useWorktree === null ? " (project default)" : ""}
      </label>
      {effective ? (
        <Field label="Start from branch">
          <select value={value.sourceBranch} onChange={(e) => onChange({ ...value, sourceBranch: e.target.value })}>
            <option value="">Default{fallback ? ` (${fallback})` : ""}</option>
            {branches.map((b) => (
              <option key={b.name} value={b.name}>
                {b.name}
              </option>
            ))}
          </select>
        </Field>
      ) : null}
    </fieldset>
  );
}
