// A small Markdown renderer for the assistant's answers. It builds DOM
// nodes (paragraphs, headings, emphasis, code, lists, links) and never
// parses HTML: a <script> in an answer is the text "<script>". Links keep
// their href only when it is http:, https: or one of the app's own #/
// routes; any other link (javascript:, data:, relative paths) stays as the
// Markdown source, as text.

// CITE is the page viewer's route: a link to it is a citation.
const CITE = /^#\/library\/([A-Za-z0-9_.~-]+)\/pages\/([1-9][0-9]{0,5})$/;

// citeText is the citation the document_search results show the model,
// "page 12 (document_id core)", which becomes a link where the model
// copies it as plain text.
const CITE_TEXT = /page (\d{1,6}) \(document_id ([A-Za-z0-9_.~-]+)\)/;

// render returns a fragment with md rendered.
export function render(md) {
  const frag = document.createDocumentFragment();
  const lines = String(md).replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^\s*$/.test(line)) {
      i++;
      continue;
    }
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      const code = [];
      for (i++; i < lines.length && !lines[i].trimStart().startsWith(fence[1]); i++) code.push(lines[i]);
      i++; // the closing fence, or the end
      const pre = document.createElement("pre");
      const c = document.createElement("code");
      c.textContent = code.join("\n");
      pre.append(c);
      frag.append(pre);
      continue;
    }
    const hd = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (hd) {
      // The answer sits under the page's own h1 and h2: its headings start
      // at h3 so the outline stays whole.
      const el = document.createElement("h" + Math.min(6, hd[1].length + 2));
      inline(el, hd[2]);
      frag.append(el);
      i++;
      continue;
    }
    const item = /^\s*([-*+]|\d{1,9}[.)])\s+/;
    const m = item.exec(line);
    if (m) {
      const ordered = /\d/.test(m[1]);
      const list = document.createElement(ordered ? "ol" : "ul");
      if (ordered && parseInt(m[1], 10) !== 1) list.setAttribute("start", String(parseInt(m[1], 10)));
      while (i < lines.length) {
        const im = item.exec(lines[i]);
        if (!im || /\d/.test(im[1]) !== ordered) break;
        const text = [lines[i].slice(im[0].length)];
        // Indented lines go on with the item.
        for (i++; i < lines.length && /^\s{2,}\S/.test(lines[i]) && !item.test(lines[i]); i++) text.push(lines[i].trim());
        const li = document.createElement("li");
        inline(li, text.join(" "));
        list.append(li);
      }
      frag.append(list);
      continue;
    }
    const para = [];
    while (i < lines.length && !/^\s*$/.test(lines[i]) && !/^\s*(```|~~~)/.test(lines[i]) &&
      !/^#{1,6}\s/.test(lines[i]) && !(para.length && item.test(lines[i]))) {
      para.push(lines[i].trim());
      i++;
    }
    const p = document.createElement("p");
    inline(p, para.join("\n"));
    frag.append(p);
  }
  return frag;
}

// inline appends text's inline Markdown to el: code spans, links, strong
// and emphasis; everything else as text.
function inline(el, text) {
  const re = /`([^`\n]+)`|\[([^\]\n]*)\]\(([^)\s]*)\)|\*\*(.+?)\*\*|__(.+?)__|\*([^*\s][^*]*?)\*|(?<![\w])_([^_\s][^_]*?)_(?![\w])/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) plain(el, text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1] !== undefined) {
      const c = document.createElement("code");
      c.textContent = m[1];
      el.append(c);
    } else if (m[3] !== undefined) {
      const a = anchor(m[3]);
      if (a) {
        inline(a, m[2] || m[3]);
        el.append(a);
      } else {
        el.append(document.createTextNode(m[0])); // refused: the source, as text
      }
    } else {
      const strong = m[4] !== undefined || m[5] !== undefined;
      const e = document.createElement(strong ? "strong" : "em");
      inline(e, m[4] ?? m[5] ?? m[6] ?? m[7]);
      el.append(e);
    }
  }
  if (last < text.length) plain(el, text.slice(last));
}

// plain appends text, with line breaks kept and text citations linked.
function plain(el, text) {
  const parts = text.split("\n");
  parts.forEach((part, n) => {
    if (n > 0) el.append(document.createElement("br"));
    let rest = part;
    for (let m = CITE_TEXT.exec(rest); m; m = CITE_TEXT.exec(rest)) {
      el.append(document.createTextNode(rest.slice(0, m.index)));
      const a = anchor(`#/library/${m[2]}/pages/${m[1]}`);
      a.textContent = m[0];
      el.append(a);
      rest = rest.slice(m.index + m[0].length);
    }
    if (rest) el.append(document.createTextNode(rest));
  });
}

// anchor returns a link to href, or null when href is not one a page may
// follow: http:, https: and the app's own #/ routes only.
export function anchor(href) {
  const a = document.createElement("a");
  const cite = CITE.exec(href);
  if (cite) {
    a.setAttribute("href", href);
    a.className = "cite";
    a.dataset.document = cite[1];
    a.dataset.page = cite[2];
    return a;
  }
  if (/^#\/[A-Za-z0-9_./~-]*$/.test(href)) {
    a.setAttribute("href", href);
    return a;
  }
  let u;
  try {
    u = new URL(href);
  } catch {
    return null; // relative, or not a URL at all
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  a.setAttribute("href", u.href);
  a.setAttribute("rel", "noopener noreferrer nofollow");
  a.setAttribute("target", "_blank");
  return a;
}
