import type { Platform, Placement } from "@floating-ui/dom";

/**
 * The app's tooltips (issue 23). Native `title` tooltips are drawn by the
 * toolkit: WebKitGTK cuts them at the window edge, paints them in the
 * desktop's colours whatever the app's theme, and leaves one up over a modal
 * that opened under the pointer. Instead, one delegated controller shows the
 * `title` of whatever is hovered or focused from the keyboard in a themed bubble that is kept
 * inside the window (floating-ui's flip and shift), and hides it on any
 * pointer press, key, scroll or when a modal covers its element.
 *
 * Components keep writing plain `title` attributes. While the bubble is up
 * the attribute is moved to `data-jc-tip` (so the native one cannot show as
 * well) and put back when it hides, so the DOM reads as it was written.
 * Text cut with an ellipsis (`text-overflow: ellipsis`, and wider than its
 * box at that moment) shows in full the same way, without a title.
 *
 * The bubble sits under the modal backdrop unless its element is inside the
 * modal, and hides when a modal opens over its element or the element leaves
 * the page while it shows (a live update can remove it under the pointer).
 */

export const SHOW_DELAY_MS = 450;
/** TIP_GAP: px between the element and the bubble; TIP_PAD: px kept from the window's edges. */
export const TIP_GAP = 6;
export const TIP_PAD = 6;
const TIP_ATTR = "data-jc-tip";
/** Marks a tip taken from a truncated element's text (no title to put back). */
const AUTO_ATTR = "data-jc-tip-auto";
/** Holds an ancestor's title while a tip is armed or shown (see holdAncestors). */
const HELD_ATTR = "data-jc-title-held";

export interface TipPlace {
  x: number;
  y: number;
  placement: Placement;
}

/**
 * placeTip places the bubble above `anchor`, or below it when there is no
 * room above (flip), slid along the edge so it stays TIP_PAD inside the window
 * (shift). `platform` measures the elements; the default is the real DOM, a
 * test passes rectangles. floating-ui is its own chunk, fetched the first
 * time a tip shows (after SHOW_DELAY_MS), not with the first bundle (issue 20).
 */
export async function placeTip(anchor: Element | object, bubble: HTMLElement | object, platform?: Platform): Promise<TipPlace> {
  const { computePosition, flip, offset, shift } = await import("@floating-ui/dom");
  const { x, y, placement } = await computePosition(anchor as Element, bubble as HTMLElement, {
    placement: "top",
    strategy: "fixed",
    middleware: [offset(TIP_GAP), flip({ padding: TIP_PAD }), shift({ padding: TIP_PAD })],
    ...(platform ? { platform } : {}),
  });
  return { x, y, placement };
}

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

/** insideModal: `el` is in an open modal dialog (its tip goes over the backdrop). */
export function insideModal(el: Element): boolean {
  return el.closest('[aria-modal="true"], dialog[open]') !== null;
}

/**
 * truncated: `el` cuts its own text with an ellipsis right now (its text is
 * wider than its box). Such an element shows its full text as its tip even
 * without a title.
 */
export function truncated(el: Element): boolean {
  if (!(el instanceof HTMLElement) || el.scrollWidth <= el.clientWidth) return false;
  return (el.ownerDocument.defaultView ?? window).getComputedStyle(el).textOverflow === "ellipsis";
}

/**
 * tipTarget: the nearest element at or above `node` that has a tip to show:
 * a non-empty title, or its own text cut with an ellipsis.
 */
export function tipTarget(node: EventTarget | null): HTMLElement | null {
  if (!(node instanceof Element)) return null;
  for (let el: Element | null = node; el && el !== el.ownerDocument.body; el = el.parentElement) {
    if (!(el instanceof HTMLElement) || el.closest("svg")) continue;
    const text = el.getAttribute("title") ?? el.getAttribute(TIP_ATTR);
    if (text !== null) {
      if (text.trim() !== "") return el;
      continue; // title="" silences the native tip; look further up
    }
    if (truncated(el) && (el.textContent ?? "").trim() !== "") return el;
  }
  return null;
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
  // While a tip shows: a modal that opens over its element, or the element
  // leaving the page, hides it.
  const watch = new MutationObserver(() => {
    if (shown && (!shown.isConnected || coveredByModal(shown, doc))) hide();
  });

  // The titles of the armed element's ancestors, held back too: the toolkit
  // shows the nearest title it finds, so with the element's own taken away a
  // message's time came up natively beside the bubble (seen in WebKitGTK).
  let held: HTMLElement[] = [];
  const holdAncestors = (el: HTMLElement) => {
    for (let a = el.parentElement; a && a !== doc.documentElement; a = a.parentElement) {
      const title = a.getAttribute("title");
      if (title === null) continue;
      a.setAttribute(HELD_ATTR, title);
      a.removeAttribute("title");
      held.push(a);
    }
  };
  const releaseAncestors = () => {
    for (const a of held) {
      const title = a.getAttribute(HELD_ATTR);
      // A render meanwhile may have set a new title: it wins.
      if (title !== null && !a.hasAttribute("title")) a.setAttribute("title", title);
      a.removeAttribute(HELD_ATTR);
    }
    held = [];
  };

  const restore = (el: HTMLElement) => {
    const text = el.getAttribute(TIP_ATTR);
    if (text !== null && !el.hasAttribute(AUTO_ATTR) && !el.hasAttribute("title")) el.setAttribute("title", text);
    el.removeAttribute(TIP_ATTR);
    el.removeAttribute(AUTO_ATTR);
    if (el.getAttribute("aria-describedby") === bubble.id) el.removeAttribute("aria-describedby");
  };

  const hide = () => {
    clearTimeout(timer);
    if (pending && pending !== shown) restore(pending);
    pending = null;
    if (shown) restore(shown);
    shown = null;
    releaseAncestors();
    bubble.hidden = true;
    watch.disconnect();
  };

  const show = (el: HTMLElement) => {
    if (!el.isConnected || coveredByModal(el, doc)) return hide();
    shown = el;
    bubble.textContent = el.getAttribute(TIP_ATTR) ?? "";
    bubble.classList.toggle("jc-tooltip--modal", insideModal(el));
    bubble.hidden = false;
    if (!el.hasAttribute("aria-describedby")) el.setAttribute("aria-describedby", bubble.id);
    watch.observe(doc.body, { childList: true, subtree: true });
    // A placement that fails (the chunk could not load, the page went away
    // while it loaded) leaves the bubble where it was; it is reported only
    // while its tip still shows.
    void placeTip(el, bubble).then(
      ({ x, y, placement }) => {
        if (shown !== el) return;
        bubble.style.left = `${x}px`;
        bubble.style.top = `${y}px`;
        bubble.dataset.placement = placement;
      },
      (err: unknown) => {
        if (shown === el) console.warn("tooltip: cannot place the tip", err);
      },
    );
  };

  const arm = (el: HTMLElement) => {
    if (el === shown || el === pending) return;
    hide();
    // Take the title now so the native tooltip cannot start its own timer.
    const title = el.getAttribute("title");
    if (title !== null) {
      el.setAttribute(TIP_ATTR, title);
      el.removeAttribute("title");
    } else if (!el.hasAttribute(TIP_ATTR)) {
      el.setAttribute(TIP_ATTR, (el.textContent ?? "").trim());
      el.setAttribute(AUTO_ATTR, "");
    }
    holdAncestors(el);
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
  // Focus shows a tip only when the keyboard moved it: a click also focuses
  // its button, and the tip would pop up 450 ms after every click.
  let viaKeyboard = false;
  const onFocus = (e: Event) => {
    if (viaKeyboard) onOver(e);
  };
  const onPress = () => {
    viaKeyboard = false;
    hide();
  };
  const onKey = () => {
    viaKeyboard = true;
    hide();
  };
  const onOut = (e: Event) => {
    const to = (e as MouseEvent).relatedTarget ?? (e as FocusEvent).relatedTarget;
    const owner = shown ?? pending;
    if (owner && !(to instanceof Node && owner.contains(to))) hide();
  };
  const listeners: Array<[string, EventListener]> = [
    ["pointerover", onOver],
    ["focusin", onFocus],
    ["pointerout", onOut],
    ["focusout", onOut],
    ["pointerdown", onPress],
    ["keydown", onKey],
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
