// CheckCommandSettings: the project's check command (e.g. `make test`), run
// in each compared task's worktree when its agent finishes. Parsed into argv
// without a shell (quotes work; pipes and variables do not).

import { useEffect, useMemo, useState, type FormEvent } from "react";
import { errorMessage } from "../../lib/errors";
import { useStoredValue } from "../../lib/storedValue";
import { Button, Field } from "../../lib/ui";
import { wailsCompareApi, type CompareApi } from "./api";

export function CheckCommandSettings({ projectId, api: apiProp }: { projectId: string; api?: CompareApi }) {
  const api = useMemo(() => apiProp ?? wailsCompareApi(), [apiProp]);
  const [saved, setSaved] = useState("");
  // Typed before the stored command arrived: the load must not wipe it.
  const { value, edit, loaded, forget } = useStoredValue("");
  const [error, setError] = useState("");
  const [done, setDone] = useState(false);
  useEffect(() => {
    forget();
    api.checkCommand(projectId).then((c) => {
      setSaved(c ?? "");
      loaded(c ?? "");
    }, () => {});
  }, [api, projectId, loaded, forget]);
  async function save(e: FormEvent) {
    e.preventDefault();
    setError("");
    try {
      const c = await api.setCheckCommand(projectId, value);
      setSaved(c);
      edit(c);
      setDone(true);
      setTimeout(() => setDone(false), 1500);
    } catch (err) {
      setError(errorMessage(err));
    }
  }
  return (
    <form className="jc-row-form" onSubmit={save} data-testid="check-command">
      <Field
        label="Check command"
        error={error}
        hint="Run in each compared agent's worktree when it finishes, e.g. make test. No shell: quotes work, pipes and $VARS do not."
      >
        <input
          className="jc-input jc-input--mono"
          name="checkCommand"
          placeholder="make test"
          value={value}
          spellCheck={false}
          onChange={(e) => edit(e.target.value)}
        />
      </Field>
      <Button type="submit" disabled={value.trim() === saved}>
        {done ? "Saved" : "Save check"}
      </Button>
    </form>
  );
}
