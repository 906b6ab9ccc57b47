// Syntax highlighting with highlight.js core; each language is its own
// chunk, fetched the first time a code block in that language is shown
// (issue 20: nothing heavy before the first paint). Registered once.
// (rehype-highlight re-registers ~40 languages every time a markdown
// processor is built, which dominated scrolling cost.)

import { useEffect, useMemo, useState } from "react";
import hljs from "highlight.js/lib/core";
import type { LanguageFn } from "highlight.js";

type Loader = () => Promise<{ default: LanguageFn }>;

const loaders: Record<string, Loader> = {
  bash: () => import("highlight.js/lib/languages/bash"),
  c: () => import("highlight.js/lib/languages/c"),
  cpp: () => import("highlight.js/lib/languages/cpp"),
  css: () => import("highlight.js/lib/languages/css"),
  diff: () => import("highlight.js/lib/languages/diff"),
  go: () => import("highlight.js/lib/languages/go"),
  java: () => import("highlight.js/lib/languages/java"),
  javascript: () => import("highlight.js/lib/languages/javascript"),
  json: () => import("highlight.js/lib/languages/json"),
  markdown: () => import("highlight.js/lib/languages/markdown"),
  python: () => import("highlight.js/lib/languages/python"),
  rust: () => import("highlight.js/lib/languages/rust"),
  shell: () => import("highlight.js/lib/languages/shell"),
  sql: () => import("highlight.js/lib/languages/sql"),
  typescript: () => import("highlight.js/lib/languages/typescript"),
  xml: () => import("highlight.js/lib/languages/xml"),
  yaml: () => import("highlight.js/lib/languages/yaml"),
};

const aliases: Record<string, string> = {
  ts: "typescript",
  tsx: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  sh: "bash",
  zsh: "bash",
  console: "bash",
  html: "xml",
  svg: "xml",
  py: "python",
  yml: "yaml",
  golang: "go",
  rs: "rust",
  patch: "diff",
};

const loading = new Map<string, Promise<boolean>>();

/** languageName maps a fence's language (or alias) to a known language, or "". */
export function languageName(lang: string): string {
  const l = lang.toLowerCase();
  const name = aliases[l] ?? l;
  return name in loaders ? name : "";
}

/** loadLanguage registers lang (fetching its chunk once); resolves true when it can highlight. */
export function loadLanguage(lang: string): Promise<boolean> {
  const name = languageName(lang);
  if (!name) return Promise.resolve(false);
  if (hljs.getLanguage(name)) return Promise.resolve(true);
  let p = loading.get(name);
  if (!p) {
    p = loaders[name]()
      .then((m) => {
        hljs.registerLanguage(name, m.default);
        return true;
      })
      .catch(() => {
        loading.delete(name);
        return false;
      });
    loading.set(name, p);
  }
  return p;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * highlight returns HTML for code in lang; unknown languages, and languages
 * whose chunk has not arrived yet, come back escaped, unhighlighted.
 */
export function highlight(code: string, lang: string): string {
  const name = languageName(lang);
  if (name && hljs.getLanguage(name) && code.length < 200_000) {
    try {
      return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
    } catch {
      /* fall through */
    }
  }
  return escapeHtml(code);
}

/** useHighlight is highlight() that re-renders once lang's chunk has loaded. */
export function useHighlight(code: string, lang: string): string {
  const name = languageName(lang);
  const [ready, setReady] = useState(() => !name || !!hljs.getLanguage(name));
  useEffect(() => {
    if (ready || !name) return;
    let live = true;
    void loadLanguage(name).then((ok) => {
      if (live && ok) setReady(true);
    });
    return () => {
      live = false;
    };
  }, [name, ready]);
  return useMemo(() => highlight(code, ready ? lang : ""), [code, lang, ready]);
}
