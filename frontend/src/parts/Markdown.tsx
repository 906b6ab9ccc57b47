// Markdown renders agent text: GitHub-flavoured markdown (tables, task
// lists, strikethrough), fenced code blocks highlighted by highlight.js with
// a copy button, links opening outside the app.

import { memo, type ReactElement, type ReactNode } from "react";
import renderMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { CopyButton } from "./CopyButton";
import { useHighlight } from "./highlight";

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
    return (
      <a href={href} target="_blank" rel="noreferrer noopener">
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
 * reusing them is safe.
 */
const CACHE_MAX = 500;
const CACHE_TEXT_MAX = 50_000;
const cache = new Map<string, ReactElement>();

export function renderedMarkdown(text: string): ReactElement {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const el = renderMarkdown({ children: text, remarkPlugins, components });
  if (text.length <= CACHE_TEXT_MAX) {
    cache.set(text, el);
    if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value as string);
  }
  return el;
}

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return <div className="jc-md">{renderedMarkdown(text)}</div>;
});
