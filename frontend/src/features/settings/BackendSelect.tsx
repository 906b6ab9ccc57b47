// BackendSelect picks an agent backend and shows what it can do.

import type { BackendInfo, Capabilities } from "../../bridge/types";
import { cx } from "../../lib/cx";

const CAPS: { key: keyof Omit<Capabilities, "modes">; label: string }[] = [
  { key: "permissions", label: "Permissions" },
  { key: "questions", label: "Questions" },
  { key: "resume", label: "Resume" },
  { key: "interrupt", label: "Interrupt" },
  { key: "setMode", label: "Switch mode" },
  { key: "setModel", label: "Switch model" },
  { key: "fork", label: "Fork" },
  { key: "compaction", label: "Compaction" },
];

interface Props {
  backends: BackendInfo[];
  value: string;
  onChange(value: string): void;
  /** An extra first option, e.g. "Project default (Claude Code)". */
  emptyLabel?: string;
  /** states says, by backend, "installed" / "not installed" / "not signed in". */
  states?: Record<string, string>;
  id?: string;
  disabled?: boolean;
  "aria-invalid"?: boolean;
  "aria-describedby"?: string;
}

export function BackendSelect({ backends, value, onChange, emptyLabel, states, ...rest }: Props) {
  const known = value === "" || backends.some((b) => b.name === value);
  return (
    <select className="jc-select" value={value} onChange={(e) => onChange(e.target.value)} {...rest}>
      {emptyLabel !== undefined ? <option value="">{emptyLabel}</option> : null}
      {backends.map((b) => (
        <option key={b.name} value={b.name} data-state={states?.[b.name] ?? ""}>
          {b.displayName || b.name}
          {states?.[b.name] ? ` — ${states[b.name]}` : ""}
        </option>
      ))}
      {!known ? <option value={value}>{value} (not installed)</option> : null}
    </select>
  );
}

/** CapabilityList shows which capabilities a backend has, as compact chips. */
export function CapabilityList({ info }: { info?: BackendInfo }) {
  if (!info) return null;
  const caps = info.capabilities ?? ({} as Capabilities);
  return (
    <>
    <ul className="jc-caps" aria-label={`${info.displayName || info.name} capabilities`}>
      {CAPS.map((c) => (
        <li key={c.key} className={cx("jc-cap", caps[c.key] ? "jc-cap--on" : "jc-cap--off")} title={caps[c.key] ? "Supported" : "Not supported"}>
          <span className="jc-cap__mark" aria-hidden="true">
            {caps[c.key] ? "✓" : "–"}
          </span>
          {c.label}
        </li>
      ))}
    </ul>
    {info.notes ? <p className="jc-caps__notes">{info.notes}</p> : null}
    </>
  );
}
