// links: every link the app shows opens in the user's default browser
// through the Go side (OpenService.OpenURL → Wails BrowserOpenURL); the
// webview itself never navigates away from the app. Only http, https and
// mailto are opened (checked here and again in Go); anything else is
// refused with a short notice.

import { OpenURL } from "../bridge/wailsjs/go/services/OpenService";

export type LinkCheck = { ok: true; url: string } | { ok: false; reason: string };

/** checkLink mirrors the Go opener.CheckURL. */
export function checkLink(href: string | null | undefined): LinkCheck {
  const h = (href ?? "").trim();
  let u: URL;
  try {
    u = new URL(h);
  } catch {
    return { ok: false, reason: `Not opened: “${h || "(empty)"}” is not a web link.` };
  }
  const scheme = u.protocol.toLowerCase();
  if ((scheme === "http:" || scheme === "https:") && u.host) return { ok: true, url: u.href };
  if (scheme === "mailto:" && u.pathname) return { ok: true, url: u.href };
  return { ok: false, reason: `Not opened: only http, https and mailto links open (this one is ${scheme}).` };
}

/** showNotice shows a short message at the bottom of the window for a few seconds. */
export function showNotice(text: string, doc: Document = document): void {
  let el = doc.getElementById("jc-notice");
  if (!el) {
    el = doc.createElement("div");
    el.id = "jc-notice";
    el.className = "jc-notice";
    el.setAttribute("role", "status");
    el.setAttribute("data-testid", "notice");
    doc.body.appendChild(el);
  }
  el.textContent = text;
  el.hidden = false;
  const mine = el;
  clearTimeout(Number(mine.dataset.timer));
  mine.dataset.timer = String(setTimeout(() => (mine.hidden = true), 4000));
}

/** openLink opens a checked link in the default browser, or says why not. */
export async function openLink(href: string): Promise<void> {
  const c = checkLink(href);
  if (!c.ok) {
    showNotice(c.reason);
    return;
  }
  try {
    await Promise.resolve().then(() => OpenURL(c.url));
  } catch (e) {
    showNotice(`Could not open the link: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * installLinkGuard routes every link click (and window.open) in the app
 * through openLink, so the webview never leaves the app. In-page anchors
 * ("#…") are left alone.
 */
export function installLinkGuard(win: Window = window): () => void {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented && !(e.target instanceof Element && e.target.closest("a[href]"))) return;
    const a = e.target instanceof Element ? (e.target.closest("a[href]") as HTMLAnchorElement | null) : null;
    if (!a) return;
    const href = a.getAttribute("href") ?? "";
    if (href.startsWith("#")) return;
    e.preventDefault();
    if (e.type === "auxclick" && e.button !== 1) return;
    void openLink(href);
  };
  const doc = win.document;
  // Like a browser's status bar: the full URL of the hovered link, before
  // it is opened (the title tooltip says it too, after a delay).
  const status = () => {
    let el = doc.getElementById("jc-link-status");
    if (!el) {
      el = doc.createElement("div");
      el.id = "jc-link-status";
      el.className = "jc-link-status";
      el.setAttribute("data-testid", "link-status");
      el.hidden = true;
      doc.body.appendChild(el);
    }
    return el;
  };
  const onOver = (e: MouseEvent) => {
    const a = e.target instanceof Element ? e.target.closest("a.jc-link") : null;
    if (!a) return;
    const url = a.getAttribute("href") ?? a.getAttribute("data-href") ?? "";
    const el = status();
    el.textContent = checkLink(url).ok ? url : `${url} — will not open`;
    el.hidden = false;
  };
  const onOut = (e: MouseEvent) => {
    if (e.target instanceof Element && e.target.closest("a.jc-link")) status().hidden = true;
  };
  doc.addEventListener("mouseover", onOver);
  doc.addEventListener("mouseout", onOut);
  doc.addEventListener("click", onClick, true);
  doc.addEventListener("auxclick", onClick, true);
  const origOpen = win.open;
  win.open = ((url?: string | URL) => {
    if (url) void openLink(String(url));
    return null;
  }) as typeof win.open;
  return () => {
    doc.removeEventListener("mouseover", onOver);
    doc.removeEventListener("mouseout", onOut);
    doc.removeEventListener("click", onClick, true);
    doc.removeEventListener("auxclick", onClick, true);
    win.open = origOpen;
  };
}

/** URL_RE finds web links in plain text (tool output, command results). A
 * trailing punctuation mark is left out: "see https://x.org/a." links x.org/a. */
const URL_RE = /\bhttps?:\/\/[^\s<>"'`]+[^\s<>"'`.,;:!?)\]}]/g;

/** LinkPiece is plain text or a link, in order (see linkPieces). */
export type LinkPiece = { text: string; href?: string };

/** linkPieces splits plain text into text and web links, so output can show
 * its links as links (opened by the link guard, like any other). */
export function linkPieces(text: string): LinkPiece[] {
  const out: LinkPiece[] = [];
  let last = 0;
  for (const m of text.matchAll(URL_RE)) {
    const i = m.index ?? 0;
    if (!checkLink(m[0]).ok) continue;
    if (i > last) out.push({ text: text.slice(last, i) });
    out.push({ text: m[0], href: m[0] });
    last = i + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

/** linkifyHtml wraps the web links of already escaped HTML (ansi_up's output:
 * spans and text, no URL inside a tag) in links. */
export function linkifyHtml(html: string): string {
  return html.replace(URL_RE, (u) =>
    checkLink(u.replace(/&amp;/g, "&")).ok ? `<a class="jc-link" href="${u}" title="${u}" rel="noreferrer noopener">${u}</a>` : u,
  );
}
