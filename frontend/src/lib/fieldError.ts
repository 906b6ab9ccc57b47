// Routes an error message from a Go service to the form field it is about,
// so the UI can show it next to that field.

/** Keywords that tie an error message to a field, checked in order. */
export type FieldKeywords<F extends string> = [F, RegExp][];

/** fieldForError returns the first field whose pattern matches msg, else fallback. */
export function fieldForError<F extends string>(msg: string, fields: FieldKeywords<F>, fallback: F): F {
  for (const [field, re] of fields) {
    if (re.test(msg)) return field;
  }
  return fallback;
}
