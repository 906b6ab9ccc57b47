// SearchPalette: full-text search over every task's messages, opened with
// Ctrl/Cmd+K or Ctrl/Cmd+Shift+F. Typing searches (debounced); filters by
// project, agent, role and dates; a hit opens its task scrolled to the
// message. Matches in snippets are <mark>ed.

import { useEffect, useMemo, useRef, useState } from "react";
import { useApp, useAppStore } from "../../state/context";
import { errorMessage } from "../../lib/errors";
import { splitSnippet, wailsSearchApi, type SearchApi, type SearchFilters, type SearchHit } from "./api";
import "./search.css";

const ROLES = ["user", "assistant", "system", "result"];
const NO_FILTERS: SearchFilters = { projectId: "", agent: "", role: "", since: "", until: "" };

/** isSearchShortcut: Ctrl/Cmd+K or Ctrl/Cmd+Shift+F. */
export function isSearchShortcut(e: KeyboardEvent): boolean {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return false;
  const k = e.key.toLowerCase();
  return (k === "k" && !e.shiftKey) || (k === "f" && e.shiftKey);
}

export function SearchPalette({ api }: { api?: SearchApi }) {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isSearchShortcut(e)) {
        e.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  if (!open) return null;
  return <SearchDialog api={api} onClose={() => setOpen(false)} />;
}

function useSearch(api: SearchApi, text: string, filters: SearchFilters) {
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!text.trim()) {
      setHits([]);
      setError("");
      return;
    }
    let alive = true;
    const t = setTimeout(() => {
      setBusy(true);
      api.search(text, filters).then(
        (h) => alive && (setHits(h), setError("")),
        (e) => alive && setError(errorMessage(e)),
      ).finally(() => alive && setBusy(false));
    }, 120);
    return () => {
      alive = false;
      clearTimeout(t);
    };
  }, [api, text, filters]);
  return { hits, error, busy };
}

function SearchDialog({ api: given, onClose }: { api?: SearchApi; onClose: () => void }) {
  const api = useMemo(() => given ?? wailsSearchApi(), [given]);
  const projects = useApp((s) => s.projects);
  const backends = useApp((s) => s.backends);
  const store = useAppStore();
  const [text, setText] = useState("");
  const [filters, setFilters] = useState(NO_FILTERS);
  const [active, setActive] = useState(0);
  const { hits, error, busy } = useSearch(api, text, filters);
  const inputRef = useRef<HTMLInputElement>(null);
  useEffect(() => inputRef.current?.focus(), []);
  useEffect(() => setActive(0), [hits]);

  const openHit = (h: SearchHit) => {
    const s = store.getState();
    if (s.selectedProjectId !== h.projectId) s.selectProject(h.projectId);
    s.openScreen({ kind: "task", taskId: h.taskId, focusMessageId: h.messageId, focusAt: Date.now() });
    onClose();
  };
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === "Escape") onClose();
    else if (e.key === "ArrowDown") setActive((a) => Math.min(a + 1, hits.length - 1));
    else if (e.key === "ArrowUp") setActive((a) => Math.max(a - 1, 0));
    else if (e.key === "Enter" && hits[active]) openHit(hits[active]);
    else return;
    e.preventDefault();
  };
  const set = (k: keyof SearchFilters) => (e: React.ChangeEvent<HTMLSelectElement | HTMLInputElement>) =>
    setFilters((f) => ({ ...f, [k]: e.target.value }));

  return (
    <div className="jc-modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="jc-modal jc-search" role="dialog" aria-modal="true" aria-label="Search all tasks" onKeyDown={onKeyDown}>
        <input
          ref={inputRef}
          className="jc-search__input"
          type="search"
          placeholder="Search every task's messages…"
          aria-label="Search"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <div className="jc-search__filters">
          <select aria-label="Project" value={filters.projectId} onChange={set("projectId")}>
            <option value="">All projects</option>
            {projects.map((p) => (
              <option key={p.id} value={p.id}>{p.name}</option>
            ))}
          </select>
          <select aria-label="Agent" value={filters.agent} onChange={set("agent")}>
            <option value="">All agents</option>
            {backends.map((b) => (
              <option key={b.name} value={b.name}>{b.displayName || b.name}</option>
            ))}
          </select>
          <select aria-label="Role" value={filters.role} onChange={set("role")}>
            <option value="">All roles</option>
            {ROLES.map((r) => (
              <option key={r} value={r}>{r}</option>
            ))}
          </select>
          <label>from <input type="date" aria-label="From" value={filters.since} onChange={set("since")} /></label>
          <label>to <input type="date" aria-label="To" value={filters.until} onChange={set("until")} /></label>
        </div>
        {error ? <div className="jc-banner jc-banner--error" role="alert">{error}</div> : null}
        <ul className="jc-search__results" role="listbox" aria-label="Results" aria-busy={busy}>
          {hits.map((h, i) => (
            <li
              key={h.rowId}
              role="option"
              aria-selected={i === active}
              className="jc-search__hit"
              data-message-id={h.messageId}
              onMouseEnter={() => setActive(i)}
              onClick={() => openHit(h)}
            >
              <div className="jc-search__meta">
                <span className="jc-search__task" title={h.taskSummary || undefined}>
                  {h.projectName} / {h.taskName || h.taskPrompt.split("\n")[0]}
                  {h.taskSummary ? <span className="jc-search__summary"> — {h.taskSummary}</span> : null}
                </span>
                <span>{h.agent} · {h.role} · {new Date(h.createdAt).toLocaleString()}</span>
              </div>
              <div className="jc-search__snippet">
                {splitSnippet(h.snippet).map((p, j) => (p.match ? <mark key={j}>{p.text}</mark> : <span key={j}>{p.text}</span>))}
              </div>
            </li>
          ))}
        </ul>
        {text.trim() && !busy && !error && hits.length === 0 ? <p className="jc-search__empty">No message matches.</p> : null}
        <footer className="jc-search__footer">
          <button
            type="button"
            className="jc-links__spawn"
            onClick={() => {
              onClose();
              window.dispatchEvent(new Event("jc:open-import"));
            }}
          >
            Import sessions from the agent CLIs…
          </button>
        </footer>
      </div>
    </div>
  );
}
