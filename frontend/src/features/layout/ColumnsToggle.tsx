// ColumnsToggle shows or hides the project and task columns (Ctrl+B).
// ColumnsRail is the slim strip that holds it while the projects column is
// hidden.

import { toggleColumns, type Columns } from "./columns";

const LABEL: Record<Columns, string> = {
  all: "Hide the projects column (Ctrl+B)",
  tasks: "Hide the task list too (Ctrl+B)",
  none: "Show the projects and tasks (Ctrl+B)",
};

export function ColumnsToggle({ columns }: { columns: Columns }) {
  return (
    <button type="button" className="jc-columns-toggle" onClick={toggleColumns} title={LABEL[columns]} aria-label={LABEL[columns]} data-testid="columns-toggle" data-columns={columns}>
      <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.4">
        <rect x="1.5" y="2.5" width="13" height="11" rx="2" />
        <line x1="5.5" y1="2.5" x2="5.5" y2="13.5" />
      </svg>
    </button>
  );
}

export function ColumnsRail({ columns }: { columns: Columns }) {
  if (columns === "all") return null;
  return (
    <div className="jc-columns-rail">
      <ColumnsToggle columns={columns} />
    </div>
  );
}
