// AddProjectDialog adds a project from the native directory picker, or from a
// typed path. The service's error (missing path, not a directory, ...) shows
// under the path field.

import { useEffect, useRef, useState, type FormEvent } from "react";
import { useApp } from "../../state/context";
import { errorMessage } from "../../lib/errors";
import { CloseIcon, FolderIcon } from "../../lib/icons";
import { Button, Field, IconButton } from "../../lib/ui";

export function AddProjectDialog() {
  const open = useApp((s) => s.addProjectOpen);
  if (!open) return null;
  return <AddProjectDialogBody />;
}

function AddProjectDialogBody() {
  const setOpen = useApp((s) => s.setAddProjectOpen);
  const pickDirectory = useApp((s) => s.pickDirectory);
  const addProject = useApp((s) => s.addProject);
  const expandPath = useApp((s) => s.expandPath);
  const [path, setPath] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  // What will be saved, shown before saving ("~" expanded).
  const [resolved, setResolved] = useState("");
  useEffect(() => {
    const typed = path.trim();
    setResolved("");
    if (!typed || !expandPath) return;
    const t = setTimeout(() => {
      expandPath(typed).then(
        (abs) => setResolved(abs !== typed ? abs : ""),
        () => setResolved(""),
      );
    }, 150);
    return () => clearTimeout(t);
  }, [path, expandPath]);

  useEffect(() => {
    inputRef.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setOpen(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [setOpen]);

  async function add(p: string) {
    setBusy(true);
    setError("");
    try {
      await addProject(p);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  async function browse() {
    setError("");
    try {
      const dir = await pickDirectory();
      if (!dir) return; // cancelled
      setPath(dir);
      await add(dir);
    } catch (err) {
      setError(errorMessage(err));
    }
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    void add(path.trim());
  }

  return (
    <div className="jc-modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && setOpen(false)}>
      <div className="jc-modal" role="dialog" aria-modal="true" aria-labelledby="add-project-title">
        <header className="jc-modal__header">
          <h2 id="add-project-title">Add project</h2>
          <IconButton label="Close" onClick={() => setOpen(false)}>
            <CloseIcon size={14} />
          </IconButton>
        </header>
        <div className="jc-modal__body">
          <Button variant="secondary" className="jc-btn--block" onClick={() => void browse()} disabled={busy}>
            <FolderIcon size={14} />
            Choose folder…
          </Button>
          <div className="jc-divider">
            <span>or type a path</span>
          </div>
          <form onSubmit={submit} className="jc-form">
            <Field label="Project folder" error={error}>
              <input
                ref={inputRef}
                className="jc-input jc-input--mono"
                name="path"
                placeholder="/home/me/src/my-repo"
                value={path}
                onChange={(e) => {
                  setPath(e.target.value);
                  setError("");
                }}
                spellCheck={false}
                autoComplete="off"
              />
            </Field>
            {resolved ? (
              <p className="jc-meta" data-testid="resolved-path">
                Will add <code>{resolved}</code>
              </p>
            ) : null}
            <div className="jc-form__actions">
              <Button variant="ghost" onClick={() => setOpen(false)}>
                Cancel
              </Button>
              <Button variant="primary" type="submit" busy={busy}>
                Add project
              </Button>
            </div>
          </form>
        </div>
      </div>
    </div>
  );
}
