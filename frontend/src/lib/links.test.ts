import { checkLink, installLinkGuard, linkifyHtml, linkPieces } from "./links";

test("only http, https and mailto links are opened", () => {
  expect(checkLink("https://example.com/docs")).toEqual({ ok: true, url: "https://example.com/docs" });
  expect(checkLink("mailto:a@b.c").ok).toBe(true);
  for (const bad of ["file:///etc/passwd", "javascript:alert(1)", "vscode://x", "", "/relative", "https://"]) {
    expect(checkLink(bad).ok).toBe(false);
  }
});

test("the link guard keeps the page where it is and refuses file: links with a notice", () => {
  const off = installLinkGuard(window);
  const a = document.createElement("a");
  a.setAttribute("href", "file:///etc/passwd");
  a.textContent = "x";
  document.body.appendChild(a);
  const ev = new MouseEvent("click", { bubbles: true, cancelable: true });
  a.dispatchEvent(ev);
  expect(ev.defaultPrevented).toBe(true);
  expect(window.open("https://example.com")).toBeNull();
  off();
});

test("links in plain output (tool results) become links; trailing punctuation stays text", () => {
  expect(linkPieces("see https://example.org/raw. and http://a.b/c?d=1&e=2, done")).toEqual([
    { text: "see " },
    { text: "https://example.org/raw", href: "https://example.org/raw" },
    { text: ". and " },
    { text: "http://a.b/c?d=1&e=2", href: "http://a.b/c?d=1&e=2" },
    { text: ", done" },
  ]);
  expect(linkPieces("no links, file:///etc/passwd stays text")).toEqual([{ text: "no links, file:///etc/passwd stays text" }]);
  expect(linkifyHtml('<span class="ansi-red-fg">https://x.org/a</span> ok')).toBe(
    '<span class="ansi-red-fg"><a class="jc-link" href="https://x.org/a" title="https://x.org/a" rel="noreferrer noopener">https://x.org/a</a></span> ok',
  );
});
