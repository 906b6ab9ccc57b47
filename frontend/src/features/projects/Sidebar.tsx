// Sidebar: the list of projects, the add-project button, settings and theme.

import { useApp } from "../../state/context";
import { projectActivity, unreadCount } from "../tasks/reducers";
import { cx } from "../../lib/cx";
import { FolderIcon, InboxIcon, GitIcon, MonitorIcon, MoonIcon, PlusIcon, SunIcon } from "../../lib/icons";
import { IconButton } from "../../lib/ui";
import type { Theme } from "../../state/store";
import { ColumnsToggle } from "../layout/ColumnsToggle";

const NEXT_THEME: Record<Theme, Theme> = { system: "light", light: "dark", dark: "system" };

export function Sidebar() {
  const projects = useApp((s) => s.projects);
  const tasksByProject = useApp((s) => s.tasksByProject);
  const selected = useApp((s) => s.selectedProjectId);
  const screen = useApp((s) => s.screen);
  const theme = useApp((s) => s.theme);
  const selectProject = useApp((s) => s.selectProject);
  const openScreen = useApp((s) => s.openScreen);
  const setAddProjectOpen = useApp((s) => s.setAddProjectOpen);
  const setTheme = useApp((s) => s.setTheme);

  const ThemeIcon = theme === "dark" ? MoonIcon : theme === "light" ? SunIcon : MonitorIcon;

  return (
    <nav className="jc-sidebar" aria-label="Projects">
      <div className="jc-sidebar__brand">
        <span className="jc-logo" aria-hidden="true">
          JC
        </span>
        <span className="jc-sidebar__title">Jean-Claude</span>
        <span className="jc-sidebar__spacer" />
        <ColumnsToggle columns="all" />
      </div>

      <InboxEntry />

      <div className="jc-sidebar__section">
        <span>Projects</span>
        <IconButton label="Add project" onClick={() => setAddProjectOpen(true)}>
          <PlusIcon size={14} />
        </IconButton>
      </div>

      <ul className="jc-project-list" role="list">
        {projects.map((p) => {
          const unread = unreadCount(tasksByProject[p.id]);
          const activity = projectActivity(tasksByProject[p.id]);
          return (
            <li key={p.id}>
              <button
                type="button"
                className={cx("jc-project-item", p.id === selected && "jc-project-item--active")}
                aria-current={p.id === selected ? "true" : undefined}
                data-testid="project-item"
                onClick={() => selectProject(p.id)}
                title={p.path}
              >
                <span className="jc-project-item__icon">{p.isGitRepo ? <GitIcon size={14} /> : <FolderIcon size={14} />}</span>
                <span className="jc-project-item__name">{p.name}</span>
                {activity ? (
                  <span
                    className={`jc-activity jc-activity--${activity}`}
                    data-activity={activity}
                    aria-label={activity === "waiting" ? "a task is waiting for you" : "an agent is working"}
                    title={activity === "waiting" ? "A task is waiting for you" : "An agent is working"}
                  />
                ) : null}
                {unread > 0 ? (
                  <span className="jc-count" aria-label={`${unread} unread`}>
                    {unread}
                  </span>
                ) : null}
              </button>
            </li>
          );
        })}
        {projects.length === 0 ? <li className="jc-sidebar__empty">No projects yet</li> : null}
      </ul>

      <RenormalizeProgress />
      <div className="jc-sidebar__footer">
        <button
          type="button"
          className={cx("jc-sidebar__footer-btn", screen.kind === "agents" && "jc-sidebar__footer-btn--active")}
          onClick={() => openScreen({ kind: "agents" })}
        >
          Agents
        </button>
        <button
          type="button"
          className={cx("jc-sidebar__footer-btn", screen.kind === "hosts" && "jc-sidebar__footer-btn--active")}
          onClick={() => openScreen({ kind: "hosts" })}
          data-testid="open-hosts"
        >
          Hosts
        </button>
        <button
          type="button"
          className={cx("jc-sidebar__footer-btn", screen.kind === "usage" && "jc-sidebar__footer-btn--active")}
          onClick={() => openScreen({ kind: "usage" })}
        >
          Usage
        </button>
        <button
          type="button"
          className={cx("jc-sidebar__footer-btn", screen.kind === "settings" && "jc-sidebar__footer-btn--active")}
          onClick={() => openScreen({ kind: "settings" })}
        >
          Settings
        </button>
        <IconButton label={`Theme: ${theme} (click for ${NEXT_THEME[theme]})`} onClick={() => setTheme(NEXT_THEME[theme])}>
          <ThemeIcon size={14} />
        </IconButton>
      </div>
    </nav>
  );
}

/** InboxEntry opens the attention inbox and shows how many items wait on the user. */
function InboxEntry() {
  const count = useApp((s) => s.inbox.length);
  const active = useApp((s) => s.screen.kind === "inbox");
  const openScreen = useApp((s) => s.openScreen);
  return (
    <button
      type="button"
      className={cx("jc-sidebar__inbox", active && "jc-sidebar__inbox--active")}
      aria-current={active ? "page" : undefined}
      data-testid="inbox-nav"
      title="Everything waiting on you (Ctrl+I)"
      onClick={() => openScreen({ kind: "inbox" })}
    >
      <InboxIcon size={14} />
      Inbox
      {count > 0 ? (
        <span className="jc-count" aria-label={`${count} waiting`} data-testid="inbox-nav-count">
          {count}
        </span>
      ) : null}
    </button>
  );
}

/** RenormalizeProgress shows the background re-normalization of old messages. */
function RenormalizeProgress() {
  const r = useApp((s) => s.renormalize);
  if (!r) return null;
  const pct = Math.min(100, Math.round((r.done / r.total) * 100));
  return (
    <div className="jc-renorm" role="status" title="Re-reading stored agent output with the current normalizers">
      <div className="jc-renorm__label">
        Updating messages… {r.done.toLocaleString()} / {r.total.toLocaleString()}
      </div>
      <div className="jc-renorm__bar">
        <div className="jc-renorm__fill" style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}
