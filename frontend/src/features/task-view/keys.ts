/**
 * isTyping reports whether a key event comes from a text field, where card
 * shortcuts stay off. The exception: digit keys in the empty composer (marked
 * data-card-digits) still pick a card's answer.
 */
export function isTyping(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  if (!t) return false;
  const tag = t.tagName;
  const field = tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || t.isContentEditable;
  if (!field) return false;
  if (/^[1-9]$/.test(e.key) && t.dataset.cardDigits !== undefined && (t as HTMLTextAreaElement).value === "") return false;
  return true;
}
