// MessageList is the virtualized message stream. Only the rows in view (plus
// overscan) are mounted; row heights are measured as they render. The list
// sticks to the bottom while the user is at the bottom, and otherwise offers
// a "jump to latest" button counting what arrived since.

import { useCallback, useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { TimelineStore } from "../../timeline/store";
import { TimelineContext } from "../../parts/context";
import { MessageRow, rowRev } from "./MessageRow";
import { estimateRowHeight } from "./estimate";

const STICK_PX = 48;

export interface MessageListProps {
  store: TimelineStore;
  /** Row key after which a "new" divider is drawn (first unread row). */
  unreadFromKey?: string | null;
  /** Extra content after the last row (e.g. a working indicator). */
  footer?: React.ReactNode;
  /** Called with the key of the last message row whenever it changes. */
  onLastRow?: (key: string) => void;
}

export function MessageList({ store, unreadFromKey, footer, onLastRow }: MessageListProps) {
  const snap = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const rows = snap.rows;
  const parentRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const [showJump, setShowJump] = useState(false);
  const seenCount = useRef(rows.length);

  // Stable callbacks: a new getItemKey makes the virtualizer recompute every
  // row's measurement (O(rows)) on each render.
  const getItemKey = useCallback((i: number) => rows[i]?.key ?? i, [rows]);
  const getScrollElement = useCallback(() => parentRef.current, []);
  const estimateSize = useCallback((i: number) => estimateRowHeight(store.state, rows[i]), [rows, store]);
  const v = useVirtualizer({
    count: rows.length,
    getScrollElement,
    estimateSize,
    overscan: 4,
    getItemKey,
    // Open at the bottom: the first render already shows the last rows.
    initialOffset: () => rows.length * 200,
  });

  const scrollToEnd = useCallback(() => {
    if (rows.length === 0) return;
    v.scrollToIndex(rows.length - 1, { align: "end" });
    const el = parentRef.current;
    if (el) requestAnimationFrame(() => (el.scrollTop = el.scrollHeight));
  }, [rows.length, v]);

  // Open at the bottom.
  useLayoutEffect(() => {
    scrollToEnd();
  }, []);

  // Follow new content while at the bottom.
  useEffect(() => {
    if (atBottom.current) {
      scrollToEnd();
      seenCount.current = rows.length;
    } else if (rows.length > seenCount.current) {
      setShowJump(true);
    }
  }, [snap.version, rows.length, scrollToEnd]);

  const onScroll = () => {
    const el = parentRef.current;
    if (!el) return;
    const near = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
    atBottom.current = near;
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
                <div key={it.key} data-index={it.index} ref={v.measureElement} className="jc-stream__row" data-row-kind={row.kind}>
                  {unreadFromKey && row.key === unreadFromKey ? (
                    <div className="jc-unread-divider" role="separator">
                      <span>New</span>
                    </div>
                  ) : null}
                  <MessageRow row={row} state={store.state} rev={rowRev(row)} />
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
