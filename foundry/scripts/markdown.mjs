// A small Markdown renderer for model text. Model text is untrusted: it is
// parsed into a tree of a few known tags and text, and the tree is turned
// into DOM nodes (text nodes for all text) or into escaped HTML. No model
// text is ever inserted as HTML; links keep only http and https URLs.

/**
 * @typedef {{tag: string, children: MdNode[], href?: string}} MdElement
 * @typedef {string | MdElement} MdNode
 */

/**
 * @param {string} tag
 * @param {MdNode[]} children
 * @returns {MdElement}
 */
const el = (tag, children) => ({ tag, children });

/**
 * Parse Markdown into a tree.
 * @param {string} src
 * @returns {MdNode[]}
 */
export function parseMarkdown(src) {
  const lines = String(src ?? "").replace(/\r\n?/g, "\n").split("\n");
  /** @type {MdNode[]} */
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = line.match(/^\s*(```|~~~)/);
    if (fence) {
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      i++; // the closing fence, or past the end
      out.push(el("pre", [el("code", [body.join("\n")])]));
      continue;
    }
    const h = line.match(/^(#{1,6})\s+(.*?)\s*#*\s*$/);
    if (h) {
      out.push(el(`h${Math.min(h[1].length + 2, 6)}`, parseInline(h[2])));
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push(el("hr", []));
      i++;
      continue;
    }
    if (/^\s*>/.test(line)) {
      const body = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) body.push(lines[i++].replace(/^\s*>\s?/, ""));
      out.push(el("blockquote", parseMarkdown(body.join("\n"))));
      continue;
    }
    const item = /^\s*([-*+]|\d+[.)])\s+/;
    if (item.test(line)) {
      const ordered = /^\s*\d/.test(line);
      /** @type {MdNode[]} */
      const items = [];
      while (i < lines.length && item.test(lines[i])) {
        let text = lines[i++].replace(item, "");
        // continuation lines indented under the item
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !item.test(lines[i])) text += " " + lines[i++].trim();
        items.push(el("li", parseInline(text)));
      }
      out.push(el(ordered ? "ol" : "ul", items));
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() !== "" && !/^\s*(```|~~~|#{1,6}\s|>|([-*+]|\d+[.)])\s)/.test(lines[i])) para.push(lines[i++].trim());
    if (para.length === 0) para.push(lines[i++].trim());
    /** @type {MdNode[]} */
    const children = [];
    para.forEach((p, n) => {
      if (n > 0) children.push(el("br", []));
      children.push(...parseInline(p));
    });
    out.push(el("p", children));
  }
  return out;
}

/**
 * Whether a link target is safe to render as a link.
 * @param {string} url
 * @returns {boolean}
 */
export function safeURL(url) {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * Parse inline Markdown: code, links, bold, italic.
 * @param {string} text
 * @returns {MdNode[]}
 */
export function parseInline(text) {
  /** @type {MdNode[]} */
  const out = [];
  const re = /`([^`]+)`|\[([^\]]+)\]\(((?:[^()\s]|\([^()\s]*\))+)\)|\*\*(.+?)\*\*|__(.+?)__|\*([^*\s][^*]*?)\*|_([^_\s][^_]*?)_/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    last = at + m[0].length;
    if (m[1] !== undefined) out.push(el("code", [m[1]]));
    else if (m[2] !== undefined) {
      if (safeURL(m[3])) out.push({ tag: "a", href: m[3], children: parseInline(m[2]) });
      else out.push(...parseInline(m[2])); // an unsafe link keeps its text only
    } else if (m[4] !== undefined || m[5] !== undefined) out.push(el("strong", parseInline(m[4] ?? m[5])));
    else out.push(el("em", parseInline(m[6] ?? m[7])));
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/**
 * @param {string} s
 * @returns {string}
 */
export function escapeHTML(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

/**
 * Render a tree as HTML, every text escaped.
 * @param {MdNode[]} nodes
 * @returns {string}
 */
export function toHTML(nodes) {
  return nodes
    .map((n) => {
      if (typeof n === "string") return escapeHTML(n);
      if (n.tag === "br" || n.tag === "hr") return `<${n.tag}>`;
      if (n.tag === "a") return `<a href="${escapeHTML(n.href ?? "")}" target="_blank" rel="noopener noreferrer nofollow">${toHTML(n.children)}</a>`;
      return `<${n.tag}>${toHTML(n.children)}</${n.tag}>`;
    })
    .join("");
}

/**
 * Render Markdown as safe HTML (for ChatMessage content).
 * @param {string} src
 * @returns {string}
 */
export function markdownToHTML(src) {
  return toHTML(parseMarkdown(src));
}

/**
 * Render a tree into DOM nodes appended to parent: text as text nodes.
 * @param {MdNode[]} nodes
 * @param {Node} parent
 * @param {Document} doc
 */
export function appendNodes(nodes, parent, doc) {
  for (const n of nodes) {
    if (typeof n === "string") {
      parent.appendChild(doc.createTextNode(n));
      continue;
    }
    const e = doc.createElement(n.tag);
    if (n.tag === "a" && n.href) {
      e.setAttribute("href", n.href);
      e.setAttribute("target", "_blank");
      e.setAttribute("rel", "noopener noreferrer nofollow");
    }
    appendNodes(n.children, e, doc);
    parent.appendChild(e);
  }
}
