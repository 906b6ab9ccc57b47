// ProjectToolSettings: the project settings' "Worktree setup" card — the
// files copied into each new worktree (a glob list), the setup command run
// there (its output appears in the task), and whether the agent waits for
// it to succeed. The comparison view's check command (issue 17) has its
// marked place in the same form.

import { useEffect, useState, type FormEvent } from "react";
import { Button, Field, FormError } from "../../lib/ui";
import { errorMessage } from "../../lib/errors";
import "../diff/diff.css";
import { wailsProjectToolSettingsApi, type ProjectToolSettings as Settings, type ProjectToolSettingsApi } from "./toolSettingsApi";

/** toolField picks the field a save error belongs to. */
export function toolField(msg: string): "globs" | "command" | "form" {
  const m = msg.toLowerCase();
  if (m.includes("glob")) return "globs";
  if (m.includes("command")) return "command";
  return "form";
}

export function ProjectToolSettings({ projectId, api = wailsProjectToolSettingsApi }: { projectId: string; api?: ProjectToolSettingsApi }) {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [draft, setDraft] = useState<Settings | null>(null);
  const [errors, setErrors] = useState<{ globs?: string; command?: string; form?: string }>({});
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let alive = true;
    api
      .get(projectId)
      .then((s) => {
        if (!alive) return;
        setSettings(s);
        setDraft(s);
      })
      .catch((err) => alive && setErrors({ form: errorMessage(err) }));
    return () => {
      alive = false;
    };
  }, [api, projectId]);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (!draft) return;
    setErrors({});
    setSaved(false);
    setBusy(true);
    try {
      const s = await api.set(projectId, draft);
      setSettings(s);
      setDraft(s);
      setSaved(true);
    } catch (err) {
      const msg = errorMessage(err);
      setErrors({ [toolField(msg)]: msg });
    } finally {
      setBusy(false);
    }
  }

  if (!draft || !settings) return <FormError error={errors.form} />;
  const set = (patch: Partial<Settings>) => {
    setDraft({ ...draft, ...patch });
    setSaved(false);
  };
  const changed = JSON.stringify(draft) !== JSON.stringify(settings);
  return (
    <form className="jc-tool-settings" onSubmit={save} aria-label="Worktree setup" data-testid="project-tool-settings">
      <Field
        label="Files to copy into each new worktree"
        error={errors.globs}
        hint="One glob per line, relative to the project folder: .env* · **/.env.local · config/**/*.local. Ignored files are copied too; links are never followed; files the worktree already has are kept."
      >
        <textarea
          className="jc-input jc-input--mono"
          name="copyGlobs"
          rows={3}
          placeholder={".env*\n**/.env.local"}
          value={draft.copyGlobs}
          onChange={(e) => set({ copyGlobs: e.target.value })}
          spellCheck={false}
        />
      </Field>
      <Field
        label="Setup command"
        error={errors.command}
        hint={
          draft.setupCommand.trim() === ""
            ? "Runs in the new worktree before the agent, e.g. npm ci. Its output appears in the task."
            : settings.setupUsesShell && draft.setupCommand === settings.setupCommand
              ? "Uses shell syntax, so it runs under /bin/sh -c. Its output appears in the task."
              : "A plain command runs directly (no shell); pipes, && or $VARS run it under /bin/sh. Its output appears in the task."
        }
      >
        <input
          className="jc-input jc-input--mono"
          name="setupCommand"
          placeholder="npm ci"
          value={draft.setupCommand}
          onChange={(e) => set({ setupCommand: e.target.value })}
          spellCheck={false}
        />
      </Field>
      <label className="jc-worktree-check">
        <input type="checkbox" name="setupRequired" checked={draft.setupRequired} onChange={(e) => set({ setupRequired: e.target.checked })} />
        Start the agent only after the setup succeeded (otherwise the task stops with “setup failed”, its prompt kept for Retry)
      </label>
      {/* ---- Check command (issue 17, comparison view): its field goes here,
          stored under the project_settings key "check.command" (Go:
          store.ProjectCheckCommand, services.ProjectSetupSettings). ---- */}
      <FormError error={errors.form} />
      <div>
        <Button type="submit" size="sm" busy={busy} disabled={!changed}>
          Save
        </Button>
        {saved ? <span className="jc-saved"> Saved</span> : null}
      </div>
    </form>
  );
}
