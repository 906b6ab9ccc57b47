// Small building blocks shared by the screens: buttons, labelled fields with
// their error line, and badges. Styles live in styles/ui.css.

import { useId, type ButtonHTMLAttributes, type ReactElement, type ReactNode } from "react";
import { cloneElement } from "react";
import { cx } from "./cx";
import { AlertIcon } from "./icons";

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: "primary" | "secondary" | "ghost" | "danger";
  size?: "sm" | "md";
  busy?: boolean;
  /**
   * What the button says while busy. Both labels are laid out in the same
   * cell so the button keeps the width of the longer one and the controls
   * next to it do not move (issue 23).
   */
  busyLabel?: ReactNode;
};

export function Button({ variant = "secondary", size = "md", busy, busyLabel, className, children, disabled, ...rest }: ButtonProps) {
  return (
    <button
      type="button"
      className={cx("jc-btn", `jc-btn--${variant}`, `jc-btn--${size}`, busy && "jc-btn--busy", className)}
      disabled={disabled || busy}
      {...rest}
    >
      {busyLabel === undefined ? (
        children
      ) : (
        <span className="jc-btn__stable">
          <span aria-hidden={busy ? true : undefined} data-shown={!busy}>
            {children}
          </span>
          <span aria-hidden={busy ? undefined : true} data-shown={!!busy}>
            {busyLabel}
          </span>
        </span>
      )}
    </button>
  );
}

export function IconButton({ label, className, children, ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { label: string }) {
  return (
    <button type="button" className={cx("jc-icon-btn", className)} aria-label={label} title={label} {...rest}>
      {children}
    </button>
  );
}

interface FieldProps {
  label: string;
  /** The error to show under the control (from the Go service). */
  error?: string;
  hint?: ReactNode;
  /** One form control; it gets the id, aria-invalid and aria-describedby. */
  children: ReactElement<Record<string, unknown>>;
  className?: string;
  inline?: boolean;
}

/** Field labels one control and shows its error right under it. */
export function Field({ label, error, hint, children, className, inline }: FieldProps) {
  const id = useId();
  const errId = `${id}-err`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errId : "", hint ? hintId : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className={cx("jc-field", inline && "jc-field--inline", error && "jc-field--error", className)}>
      <label className="jc-field__label" htmlFor={id}>
        {label}
      </label>
      <div className="jc-field__control">
        {cloneElement(children, { id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy })}
        {hint && !error ? (
          <div className="jc-field__hint" id={hintId}>
            {hint}
          </div>
        ) : null}
        {error ? (
          <div className="jc-field__error" id={errId} role="alert">
            <AlertIcon size={12} />
            <span>{error}</span>
          </div>
        ) : null}
      </div>
    </div>
  );
}

/** FormError is the error line for errors that belong to no single field. */
export function FormError({ error }: { error?: string }) {
  if (!error) return null;
  return (
    <div className="jc-form-error" role="alert">
      <AlertIcon size={12} />
      <span>{error}</span>
    </div>
  );
}

export function Kbd({ children }: { children: ReactNode }) {
  return <kbd className="jc-kbd">{children}</kbd>;
}
