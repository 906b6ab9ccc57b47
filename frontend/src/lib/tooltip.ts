import { computePosition, flip, offset, shift } from "@floating-ui/dom";

/**
 * The app's tooltips (issue 23). Native `title` tooltips are drawn by the
 * toolkit: WebKitGTK cuts them at the window edge, paints them in the
 * desktop's colours whatever the app's theme, and leaves one up over a modal
 * that opened under the pointer. Instead, one delegated controller shows the
 * `title` of whatever is hovered or focused in a themed bubble that is kept
 * inside the window (floating-ui's flip and shift), and hides it on any
 * pointer press, key, scroll or when a modal covers its element.
 *
 * Components keep writing plain `title` attributes. While the bubble is up
 * the attribute is moved to `data-jc-tip` (so the native one cannot show as
 * well) and put back when it hides, so the DOM reads as it was written.
 */

export const SHOW_DELAY_MS = 450;
const TIP_ATTR = "data-jc-tip";

export interface TooltipController {
  /** The element whose tip is showing, if any. */
  current(): HTMLElement | null;
  hide(): void;
  dispose(): void;
}

/** coveredByModal: a modal dialog is open and `el` is not inside it. */
export function coveredByModal(el: Element, doc: Document = el.ownerDocument): boolean {
  const modals = doc.querySelectorAll('[aria-modal="true"], dialog[open]');
  if (modals.length === 0) return false;
  const top = modals[modals.length - 1];
  return !top.contains(el);
}

/** tipTarget: the nearest element at or above `node` that has a tip to show. */
export function tipTarget(node: EventTarget | null): HTMLElement | null {
  if (!(node instanceof Element)) return null;
  const el = node.closest<HTMLElement>(`[title], [${TIP_ATTR}]`);
  if (!el || el.closest("svg title")) return null;
  const text = el.getAttribute("title") ?? el.getAttribute(TIP_ATTR) ?? "";
  return text.trim() === "" ? null : el;
}

export function installTooltips(doc: Document = document): TooltipController {
  const bubble = doc.createElement("div");
  bubble.className = "jc-tooltip";
  bubble.setAttribute("role", "tooltip");
  bubble.id = "jc-tooltip";
  bubble.hidden = true;
  doc.body.appendChild(bubble);

  let shown: HTMLElement | null = null;
  let pending: HTMLElement | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const restore = (el: HTMLElement) => {
    const text = el.getAttribute(TIP_ATTR);
    if (text !== null) {
      el.setAttribute("title", text);
      el.removeAttribute(TIP_ATTR);
    }
    if (el.getAttribute("aria-describedby") === bubble.id) el.removeAttribute("aria-describedby");
  };

  const hide = () => {
    clearTimeout(timer);
    if (pending && pending !== shown) restore(pending);
    pending = null;
    if (shown) restore(shown);
    shown = null;
    bubble.hidden = true;
  };

  const show = (el: HTMLElement) => {
    if (!el.isConnected || coveredByModal(el, doc)) return hide();
    shown = el;
    bubble.textContent = el.getAttribute(TIP_ATTR) ?? "";
    bubble.hidden = false;
    if (!el.hasAttribute("aria-describedby")) el.setAttribute("aria-describedby", bubble.id);
    void computePosition(el, bubble, {
      placement: "top",
      strategy: "fixed",
      middleware: [offset(6), flip({ padding: 6 }), shift({ padding: 6 })],
    }).then(({ x, y }) => {
      if (shown !== el) return;
      bubble.style.left = `${x}px`;
      bubble.style.top = `${y}px`;
    });
  };

  const arm = (el: HTMLElement) => {
    if (el === shown || el === pending) return;
    hide();
    // Take the title now so the native tooltip cannot start its own timer.
    const title = el.getAttribute("title");
    if (title !== null) {
      el.setAttribute(TIP_ATTR, title);
      el.removeAttribute("title");
    }
    pending = el;
    timer = setTimeout(() => {
      pending = null;
      show(el);
    }, SHOW_DELAY_MS);
  };

  const onOver = (e: Event) => {
    const el = tipTarget(e.target);
    if (el) arm(el);
    else if (shown || pending) hide();
  };
  const onOut = (e: Event) => {
    const to = (e as MouseEvent).relatedTarget ?? (e as FocusEvent).relatedTarget;
    const owner = shown ?? pending;
    if (owner && !(to instanceof Node && owner.contains(to))) hide();
  };
  const listeners: Array<[string, EventListener]> = [
    ["pointerover", onOver],
    ["focusin", onOver],
    ["pointerout", onOut],
    ["focusout", onOut],
    ["pointerdown", hide],
    ["keydown", hide],
    ["wheel", hide],
  ];
  for (const [t, f] of listeners) doc.addEventListener(t, f, true);
  doc.addEventListener("scroll", hide, true);
  doc.defaultView?.addEventListener("blur", hide);

  return {
    current: () => shown,
    hide,
    dispose: () => {
      hide();
      for (const [t, f] of listeners) doc.removeEventListener(t, f, true);
      doc.removeEventListener("scroll", hide, true);
      doc.defaultView?.removeEventListener("blur", hide);
      bubble.remove();
    },
  };
}
