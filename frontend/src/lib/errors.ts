/** errorMessage turns a rejected bridge call into the text the UI shows.
 * Wails rejects with the Go error's message as a plain string. */
export function errorMessage(err: unknown): string {
  if (err == null) return "Unknown error";
  if (typeof err === "string") return err;
  if (err instanceof Error) return err.message;
  if (typeof err === "object" && "message" in err) return String((err as { message: unknown }).message);
  return String(err);
}
