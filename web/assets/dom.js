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

// stickToEnd keeps a scrolling frame at its end across a change of its
// own size or its content's (the page narrowing, a tablet turning: the
// text rewraps taller and the scroll offset alone would leave the newest
// turn below the fold), if it was at its end before. A frame the reader
// scrolled up keeps the entry (a child of content) they were reading at
// its top, as far into it as it was. It returns end, which scrolls the
// frame to its end (as something new arrives) and keeps it there, and
// stop, which stops watching.
export function stickToEnd(frame, content) {
  let atEnd = true;
  let seen = ""; // the sizes the observer last acted on
  let anchor = null; // the entry at the frame's top edge, when not at the end
  let into = 0; // how far into it the edge was, a fraction of its height
  const sizes = () => [frame.clientWidth, frame.clientHeight, content.offsetWidth, content.offsetHeight].join();
  const measure = () => {
    // A pixel or two of slack: zoomed pages scroll by fractions.
    atEnd = frame.scrollHeight - frame.scrollTop - frame.clientHeight <= 2;
    anchor = null;
    if (atEnd) return;
    const top = frame.getBoundingClientRect().top;
    for (const e of content.children) {
      const r = e.getBoundingClientRect();
      if (r.height > 0 && r.bottom > top) {
        anchor = e;
        into = (top - r.top) / r.height;
        return;
      }
    }
  };
  // A scroll is the reader's unless a size changed that the observer has
  // not yet seen: then it is the browser's, and the observer decides.
  const scrolled = () => { if (sizes() === seen) measure(); };
  const observer = new ResizeObserver(() => {
    if (atEnd) {
      frame.scrollTop = frame.scrollHeight;
    } else if (anchor && anchor.isConnected) {
      const r = anchor.getBoundingClientRect();
      frame.scrollTop += r.top + into * r.height - frame.getBoundingClientRect().top;
    }
    seen = sizes();
    measure();
  });
  frame.addEventListener("scroll", scrolled, {passive: true});
  observer.observe(frame);
  observer.observe(content);
  return {
    end() {
      atEnd = true;
      frame.scrollTop = frame.scrollHeight;
    },
    stop() {
      observer.disconnect();
      frame.removeEventListener("scroll", scrolled);
    },
  };
}
