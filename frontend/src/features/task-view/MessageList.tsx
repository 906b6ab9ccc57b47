// MessageList is the virtualized message stream. Only the rows in view (plus
// overscan) are mounted; row heights are measured as they render. The list
// sticks to the bottom while the user is at the bottom, and otherwise offers
// a "jump to latest" button counting what arrived since.

import { useCallback, useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { TimelineStore } from "../../timeline/store";
import type { DisplayRow as Row } from "../../timeline/groups";
import type { TimelineState } from "../../timeline/state";
import { TimelineContext } from "../../parts/context";
import { MessageRow, rowRev } from "./MessageRow";
import { estimateRowHeight } from "./estimate";
import { perfMark } from "../../lib/perfMark";
import { holdMarkdownCache } from "../../parts/Markdown";

const STICK_PX = 48;

export interface MessageListProps {
  store: TimelineStore;
  /** Row key after which a "new" divider is drawn (first unread row). */
  unreadFromKey?: string | null;
  /** Extra content after the last row (e.g. a working indicator). */
  footer?: React.ReactNode;
  /** Called with the key of the last message row whenever it changes. */
  onLastRow?: (key: string) => void;
  /** Changes when the user sent a message: the list goes to the bottom. */
  scrollSignal?: number;
  /** A message to scroll to (centered) and flash once it is loaded. */
  focus?: { messageId: string; at: number };
  /** "Fork from here" on a message row. */
  onFork?: (messageId: string) => void;
  /** Called when the list is scrolled near its top: load the older page, true when one is coming (the view keeps its place when it comes). */
  onNearTop?: () => boolean;
}

const NEAR_TOP_PX = 600;

/** focusRowIndex finds the row showing message id: its own row, or, for a
 * message folded into another row (a tool result shown with its tool use),
 * the row of the message holding that tool use. -1 when not loaded yet. */
export function focusRowIndex(rows: Row[], state: TimelineState, id: string): number {
  const direct = rows.findIndex((r) => r.kind !== "notice" && r.id === id);
  if (direct >= 0) return direct;
  for (const p of state.messages.get(id)?.msg.parts ?? []) {
    if (p.type !== "tool-result") continue;
    const owner = p.toolId ? state.toolUses.get(p.toolId)?.messageId : undefined;
    const i = owner ? rows.findIndex((r) => r.kind !== "notice" && r.id === owner) : -1;
    if (i >= 0) return i;
  }
  return -1;
}

export function MessageList({ store, unreadFromKey, footer, onLastRow, scrollSignal, focus, onFork, onNearTop }: MessageListProps) {
  const snap = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const rows = snap.rows;
  const parentRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const [showJump, setShowJump] = useState(false);
  const seenCount = useRef(rows.length);

  // Callbacks that change only with the row structure: a new getItemKey or
  // estimateSize makes the virtualizer recompute every row (O(rows)).
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const estimates = useRef(new Map<string, number>());
  const structure = snap.structure;
  const getItemKey = useCallback((i: number) => rowsRef.current[i]?.key ?? i, [structure]);
  const getScrollElement = useCallback(() => parentRef.current, []);
  const estimateSize = useCallback(
    (i: number) => {
      const row = rowsRef.current[i];
      if (!row) return 60;
      let h = estimates.current.get(row.key);
      if (h === undefined) {
        h = estimateRowHeight(store.state, row);
        estimates.current.set(row.key, h);
      }
      return h;
    },
    [structure, store],
  );
  const v = useVirtualizer({
    count: rows.length,
    getScrollElement,
    estimateSize,
    overscan: 4,
    getItemKey,
    // Open at the bottom: the first render already shows the last rows.
    initialOffset: () => rowsRef.current.length * 200,
  });

  const scrollToEnd = useCallback(() => {
    const el = parentRef.current;
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    // Rows measured after this frame can grow the list: pin again.
    requestAnimationFrame(() => {
      if (atBottom.current) el.scrollTop = el.scrollHeight;
    });
  }, []);

  // Open at the bottom.
  useLayoutEffect(() => {
    perfMark("jc:stream:mounted");
    scrollToEnd();
  }, [scrollToEnd]);

  // An older page came in front of the rows: keep the row that was on top
  // where it was on screen.
  const anchor = useRef<{ key: string | number; index: number; offset: number; first: string | number } | null>(null);
  useLayoutEffect(() => {
    const a = anchor.current;
    const el = parentRef.current;
    if (!a || !el || rows.length === 0 || rows[0].key === a.first) return;
    anchor.current = null;
    // Older rows come only at the top: not following the bottom now (the
    // effect below must not pin a view that was at the top to its end).
    atBottom.current = false;
    const i = rows.findIndex((r) => r.key === a.key);
    if (i < 0) return;
    seenCount.current += i - a.index; // the rows that came in front are not new
    const start = v.measurementsCache[i]?.start;
    if (start !== undefined) el.scrollTop = start + a.offset;
    // The rows put in front are placed by their estimated heights, and
    // are measured over the next frames (the virtualizer then moves the
    // view by their corrections): put the anchor row back exactly where it
    // was each frame until it stays (a few frames at most).
    let left = 10;
    let still = 0;
    const settle = () => {
      const row = el.querySelector<HTMLElement>(`.jc-stream__row[data-index="${i}"]`);
      if (row) {
        const d = row.getBoundingClientRect().top - el.getBoundingClientRect().top + a.offset;
        if (Math.abs(d) >= 1) el.scrollTop += d;
        still = Math.abs(d) < 1 ? still + 1 : 0;
      } else {
        const at = v.measurementsCache[i]?.start;
        if (at !== undefined) el.scrollTop = at + a.offset;
        still = 0;
      }
      if (--left > 0 && still < 2) requestAnimationFrame(settle);
    };
    requestAnimationFrame(settle);
  }, [snap.structure, rows, v]);

  // Follow new content while at the bottom.
  useLayoutEffect(() => {
    if (atBottom.current) {
      scrollToEnd();
      seenCount.current = rows.length;
    } else if (rows.length > seenCount.current) {
      setShowJump(true);
    }
  }, [snap.version, rows.length, scrollToEnd]);

  // Sending a message brings the view to the bottom, wherever it was.
  useLayoutEffect(() => {
    if (!scrollSignal) return;
    atBottom.current = true;
    seenCount.current = rowsRef.current.length;
    setShowJump(false);
    scrollToEnd();
  }, [scrollSignal, scrollToEnd]);

  // Scroll to the focused message once its row exists (messages load
  // after mount); each focus (its "at") is handled once.
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const focusDone = useRef<number | null>(null);
  useLayoutEffect(() => {
    if (!focus || focusDone.current === focus.at) return;
    const i = focusRowIndex(rows, store.state, focus.messageId);
    if (i < 0) return;
    focusDone.current = focus.at;
    atBottom.current = false;
    setFocusKey(rows[i].key);
    v.scrollToIndex(i, { align: "center" });
  }, [focus, rows, store, v]);

  const onScroll = () => {
    const el = parentRef.current;
    if (!el) return;
    const near = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
    atBottom.current = near;
    if (onNearTop && el.scrollTop < NEAR_TOP_PX && rows.length > 0 && onNearTop()) {
      // From all rows' offsets: the drawn ones may still be those of the
      // position before this scroll (the virtualizer updates after us).
      const top = v.measurementsCache.find((it) => it.end > el.scrollTop) ?? v.measurementsCache[0];
      if (top) anchor.current = { key: rows[top.index].key, index: top.index, offset: el.scrollTop - top.start, first: rows[0].key };
    }
    if (near) {
      seenCount.current = rows.length;
      if (showJump) setShowJump(false);
    }
  };

  let lastKey: string | null = null;
  for (let i = rows.length - 1; i >= 0; i--) {
    if (rows[i].kind !== "notice") {
      lastKey = rows[i].key;
      break;
    }
  }
  useEffect(() => {
    if (lastKey) onLastRow?.(lastKey);
  }, [lastKey, onLastRow]);
  // Rendered markdown is cached while a list is open, and let go with the last.
  useEffect(() => holdMarkdownCache(), []);

  const items = v.getVirtualItems();
  const newCount = rows.length - seenCount.current;
  return (
    <TimelineContext.Provider value={{ state: store.state }}>
      <div className="jc-stream" ref={parentRef} onScroll={onScroll} data-testid="message-stream" data-rows={rows.length}>
        <div className="jc-stream__inner" style={{ height: v.getTotalSize() }}>
          <div className="jc-stream__window" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
            {items.map((it) => {
              const row = rows[it.index];
              return (
                <div key={it.key} data-index={it.index} ref={v.measureElement} className={row.key === focusKey ? "jc-stream__row jc-stream__row--focus" : "jc-stream__row"}
                  data-row-kind={row.kind}
                  data-message-id={row.kind === "notice" ? undefined : row.id}
                  data-focused={row.key === focusKey ? "true" : undefined}
                >
                  {unreadFromKey && row.key === unreadFromKey ? (
                    <div className="jc-unread-divider" role="separator">
                      <span>New</span>
                    </div>
                  ) : null}
                  <MessageRow row={row} state={store.state} rev={rowRev(row)} />
                  {onFork && row.kind !== "notice" ? (
                    <button type="button" className="jc-stream__fork" onClick={() => onFork(row.id)}>
                      Fork from here
                    </button>
                  ) : null}
                </div>
              );
            })}
          </div>
        </div>
        {footer}
      </div>
      {showJump && newCount > 0 ? (
        <button
          type="button"
          className="jc-jump"
          onClick={() => {
            atBottom.current = true;
            setShowJump(false);
            scrollToEnd();
          }}
        >
          ↓ {newCount} new
        </button>
      ) : null}
    </TimelineContext.Provider>
  );
}
