/** The status reason of a remote task while its host's link is down (orchestrator.UnreachableReason). */
export const HOST_UNREACHABLE = "host unreachable ";

/** What the banner shows: the cause in words, and the raw error for whoever asks. */
export interface HostDown {
  /** "since 15:04:05: connection lost" (and a queued stop, if any). */
  text: string;
  /** ssh's or the channel's own error ("" when none was given). */
  detail: string;
}

/**
 * hostDown reads "host unreachable since 15:04:05: connection lost" with the
 * raw error on the following line; null for any other reason.
 */
export function hostDown(reason: string | undefined | null): HostDown | null {
  if (!reason?.startsWith(HOST_UNREACHABLE)) return null;
  const nl = reason.indexOf("\n");
  const first = nl < 0 ? reason : reason.slice(0, nl);
  return { text: first.slice(HOST_UNREACHABLE.length), detail: nl < 0 ? "" : reason.slice(nl + 1).trim() };
}
