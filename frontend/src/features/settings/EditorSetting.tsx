// EditorSetting: which program opens files from the task view (paths in
// tool rows and the diff, "Open in editor"). Saved by OpenService.

import { useEffect, useState } from "react";
import { GetEditor, SetEditor } from "../../bridge/wailsjs/go/services/OpenService";
import { errorMessage } from "../../lib/errors";
import { useStoredValue } from "../../lib/storedValue";

const CHOICES: [string, string][] = [
  ["auto", "Automatic ($VISUAL, $EDITOR, then VS Code, then the system default)"],
  ["env", "$VISUAL / $EDITOR"],
  ["code", "VS Code (code -g file:line)"],
  ["xdg-open", "The system default application"],
];

export function EditorSetting() {
  // A choice made before the stored one arrives wins: the load only fills
  // a select the user has not touched (it would show the old choice while
  // the new one is saved).
  const { value, edit, loaded } = useStoredValue("auto");
  const [error, setError] = useState("");
  useEffect(() => {
    Promise.resolve()
      .then(() => GetEditor())
      .then(loaded, (err: unknown) => setError(`Could not read the editor setting: ${errorMessage(err)}`));
  }, [loaded]);
  return (
    <section className="jc-card">
      <h2 className="jc-card__title">Editor</h2>
      <p className="jc-card__desc">Opens file paths from the task view at their line, and a task's folder.</p>
      <select
        className="jc-select"
        aria-label="Editor"
        value={value}
        onChange={(e) => {
          const v = e.target.value;
          edit(v);
          setError("");
          Promise.resolve()
            .then(() => SetEditor(v))
            .catch((err: unknown) => setError(errorMessage(err)));
        }}
      >
        {CHOICES.map(([v, label]) => (
          <option key={v} value={v}>
            {label}
          </option>
        ))}
      </select>
      {error ? <div className="jc-field__error" role="alert">{error}</div> : null}
    </section>
  );
}
