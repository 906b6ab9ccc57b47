// useStoredValue: a field's value that the stored one fills when it
// arrives, unless the user changed the field first: a load that comes back
// late must not put back what the user typed or chose (the e2e suite lost
// a typed check command that way on a slow start).

import { useCallback, useRef, useState } from "react";

export function useStoredValue<T>(initial: T) {
  const [value, setValue] = useState(initial);
  const edited = useRef(false);
  /** edit: the user's value (a later load leaves it). */
  const edit = useCallback((v: T) => {
    edited.current = true;
    setValue(v);
  }, []);
  /** loaded: the stored value, shown unless the user edited since forget. */
  const loaded = useCallback((v: T) => {
    if (!edited.current) setValue(v);
  }, []);
  /** forget: a new load starts (another project): the next one fills the field. */
  const forget = useCallback(() => {
    edited.current = false;
  }, []);
  return { value, edit, loaded, forget };
}
