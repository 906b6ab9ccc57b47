// Markdown renders agent text: GitHub-flavoured markdown (tables, task
// lists, strikethrough), fenced code blocks highlighted by highlight.js with
// a copy button, links opening outside the app.

import { memo, type ReactElement, type ReactNode } from "react";
import renderMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { CopyButton } from "./CopyButton";
import { useHighlight } from "./highlight";
import { checkLink, showNotice } from "../lib/links";

/** keepUrl hands links to the a renderer as written; it decides (checkLink). Images keep the default. */
function keepUrl(url: string, key: string): string {
  return key === "href" ? url : /^(https?:|data:image\/)/i.test(url) ? url : "";
}

function checkLinkReason(raw: string): string {
  const c = checkLink(raw);
  return c.ok ? "" : c.reason;
}

function textOfNode(n: ReactNode): string {
  if (n == null || typeof n === "boolean") return "";
  if (typeof n === "string" || typeof n === "number") return String(n);
  if (Array.isArray(n)) return n.map(textOfNode).join("");
  if (typeof n === "object" && "props" in n) {
    const props = n.props as { children?: ReactNode };
    return textOfNode(props.children);
  }
  return "";
}

export function CodeBlock({ code, lang }: { code: string; lang: string }) {
  const html = useHighlight(code, lang);
  return (
    <div className="jc-codeblock">
      <div className="jc-codeblock__bar">
        <span className="jc-codeblock__lang">{lang || "code"}</span>
        <CopyButton text={code} />
      </div>
      <pre>
        <code className={`hljs${lang ? ` language-${lang}` : ""}`} dangerouslySetInnerHTML={{ __html: html }} />
      </pre>
    </div>
  );
}

const components: Components = {
  pre({ children }) {
    const code = textOfNode(children).replace(/\n$/, "");
    let lang = "";
    if (children && typeof children === "object" && "props" in children) {
      const cls = (children.props as { className?: string }).className ?? "";
      lang = /language-([\w+-]+)/.exec(cls)?.[1] ?? "";
    }
    return <CodeBlock code={code} lang={lang} />;
  },
  a({ href, children }) {
    // Only links the app opens (http, https, mailto) get an href; any other
    // (file:, javascript:, custom schemes) is shown, never followed: a click
    // says why it is not opened. The link guard (lib/links) opens the rest
    // in the default browser; the full URL shows on hover.
    const raw = href ?? "";
    if (checkLink(raw).ok) {
      return (
        <a href={raw} title={raw} rel="noreferrer noopener" className="jc-link" data-testid="md-link">
          {children}
        </a>
      );
    }
    return (
      <a role="link" tabIndex={0} title={raw} data-href={raw} className="jc-link is-refused" data-testid="md-link" onClick={() => showNotice(checkLinkReason(raw))} onKeyDown={(e) => e.key === "Enter" && showNotice(checkLinkReason(raw))}>
        {children}
      </a>
    );
  },
  table({ children }) {
    return (
      <div className="jc-md-table">
        <table>{children}</table>
      </div>
    );
  },
};

const remarkPlugins = [remarkGfm];

/**
 * A bounded cache of rendered markdown trees by text. Rows of a virtualized
 * list mount and unmount as they scroll; parsing the same text again on each
 * mount dominated scrolling cost. The element trees are immutable, so
 * reusing them is safe. Message lists hold the cache (holdMarkdownCache)
 * and the last one to close empties it: a closed task view leaves none of
 * its transcript behind in the page's heap (issue 20's soak).
 */
const CACHE_MAX = 500;
const CACHE_TEXT_MAX = 50_000;
const cache = new Map<string, ReactElement>();
let holders = 0;

/** holdMarkdownCache keeps the cache until the returned release is called (once a list is unmounted). */
export function holdMarkdownCache(): () => void {
  holders++;
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    holders--;
    if (holders === 0) cache.clear();
  };
}

/** markdownCacheSize is how many rendered texts the cache holds (tests). */
export function markdownCacheSize(): number {
  return cache.size;
}

export function renderedMarkdown(text: string): ReactElement {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const el = renderMarkdown({ children: text, remarkPlugins, components, urlTransform: keepUrl });
  if (text.length <= CACHE_TEXT_MAX) {
    cache.set(text, el);
    if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value as string);
  }
  return el;
}

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return <div className="jc-md">{renderedMarkdown(text)}</div>;
});
