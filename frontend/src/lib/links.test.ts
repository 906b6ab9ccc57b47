import { checkLink, installLinkGuard } from "./links";

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
