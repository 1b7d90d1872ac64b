// DOM helpers. Text only ever enters the page as text nodes, and only the
// attributes named in SAFE can be set from data: nothing here can turn a
// string into markup or script.

const SAFE = new Set(["id", "class", "type", "name", "value", "title", "for", "role", "tabindex",
  "placeholder", "autocomplete", "required", "disabled", "hidden", "min", "max", "step", "lang",
  "aria-live", "aria-label", "aria-labelledby", "aria-describedby", "aria-busy", "aria-current",
  "aria-relevant", "aria-atomic", "aria-expanded", "spellcheck", "maxlength", "download", "scope",
  "accept", "colspan", "rel", "width", "height", "alt", "readonly", "aria-hidden"]);

// h builds an element: attrs set through SAFE (href only through link),
// on* keys as listeners, children as nodes or text.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") {
      el.addEventListener(k.slice(2), v);
    } else if (SAFE.has(k) || k.startsWith("data-")) {
      el.setAttribute(k, v === true ? "" : String(v));
    } else {
      throw new Error("dom: attribute not allowed: " + k);
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// link is an anchor to one of this server's own paths or #routes; anything
// else (javascript:, other hosts) is refused.
export function link(href, attrs, ...children) {
  if (!/^(#\/|\/(?!\/))/.test(href)) throw new Error("dom: link outside the app: " + href);
  const a = h("a", attrs, ...children);
  a.setAttribute("href", href);
  return a;
}

// image is an <img> of one of this server's own paths, like link.
export function image(src, alt, attrs) {
  if (!/^\/(?!\/)/.test(src)) throw new Error("dom: image outside the app: " + src);
  const img = h("img", {...attrs, alt});
  img.setAttribute("src", src);
  return img;
}

// replace empties el and puts children in.
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}
