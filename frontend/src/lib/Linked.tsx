// Linked: plain text (tool output, a card's question or description) with
// its web links shown as links; the link guard (lib/links) opens them in the
// default browser.

import { useMemo } from "react";
import { linkPieces } from "./links";

/** Linked shows plain text with its web links as links. */
export function Linked({ text }: { text: string }) {
  const pieces = useMemo(() => linkPieces(text), [text]);
  return (
    <>
      {pieces.map((p, i) =>
        p.href ? (
          <a key={i} className="jc-link" href={p.href} title={p.href} rel="noreferrer noopener">
            {p.text}
          </a>
        ) : (
          p.text
        ),
      )}
    </>
  );
}
