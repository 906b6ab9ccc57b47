// Agent error texts in the user's words where a CLI prints a raw code
// (issue 23): the problem banner and a failed turn's row use this; the
// transcript keeps what the agent wrote.

/** Claude Code's usage-limit error: "Claude AI usage limit reached|<epoch seconds or ms>". */
const claudeLimit = /^Claude AI usage limit reached\|(\d{10,13})\s*$/;

/**
 * readableAgentText rewrites a known raw agent error into words, with the
 * reset time in local time; any other text is returned as it is.
 */
export function readableAgentText(text: string, timeZone?: string): string {
  const m = claudeLimit.exec(text.trim());
  if (!m) return text;
  const n = Number(m[1]);
  const at = new Date(m[1].length > 10 ? n : n * 1000);
  const when = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", timeZone });
  return `Claude AI usage limit reached; it resets at ${when}.`;
}
