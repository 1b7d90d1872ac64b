// Package web is Hearth's browser face: one HTML shell, plain ES modules
// and one stylesheet, embedded in the binary and served by `hearth serve`
// at / (the shell) and /assets/V/ (everything else, V being a hash of all
// assets, so they can be cached as immutable).
//
// # Stack
//
// There is no build step and no Node.js, at run time or to build the
// binary: the files under assets/ are what the browser runs, as written.
// The UI is small enough (sign-in, the games list, the game view, the
// library with its page viewer, the GM's settings) that a
// framework would cost more bytes than it saves; the few DOM helpers it
// needs are in assets/dom.js. English and German messages are JSON under
// assets/i18n/, chosen by navigator.language with a switcher.
//
// Node.js appears only in the tests: package.json pins axe-core, which
// web/chromiumtest injects into every view (npm ci in web/ installs it).
//
// # Inert by construction
//
// Every piece of model, document or user text reaches the DOM through
// textContent or createTextNode (dom.js's h and text), never innerHTML,
// outerHTML, insertAdjacentHTML or document.write, and no attribute is set
// from such text but title, value and data-*. Links are built only to this
// server's own routes, except in the assistant's answers: markdown.js
// renders Markdown as DOM nodes and keeps a link only when it is http:,
// https: or an in-app #/ route (a citation opens #/library/ID/pages/N);
// any other stays its Markdown source, as text. The strict Content-Security-Policy the handler sends
// (no inline script or style) is the second wall, not the first.
//
// # Holding still
//
// A view keeps the place of what fills in after it shows (a status line
// its line, the game's story its height, the choices one row below the
// action box, scrolled sideways when they overflow it, the game's
// sidebar its column) and puts what may or may not come (scene images,
// the library's list) after what is known, so a click meant for a button
// is not taken by what moved there. The game's log and the assistant's
// chat fit what they hold at the foot of a frame of fixed height, as a
// chat's do: a new turn, an answer or the assistant's pause scrolls the
// frame and moves nothing on the page. A frame scrolled to its end stays
// there when it or its text changes width (the page narrowing, a tablet
// turning); one scrolled up keeps the turn at its top. The header keeps its brand and
// language switcher in place as the navigation fills in (narrow, it
// wraps in a row of its own), and the shell's "Loading…" stands out of
// the flow. Messages float at the viewport's foot instead of pushing the
// view down. web/chromiumtest measures the layout shift of the shell, the
// game view (as it opens and as turns arrive), the assistant, the
// library and the wizard, at 1440 and 390 px in English and German, and
// fails above 0.01.
//
// # Security of the shell
//
// The shell and assets need no key: they hold no data. Everything the
// page shows comes from the API, signed in with the session cookie
// (POST /api/session), with the CSRF token kept in memory only and sent as
// X-CSRF-Token on every POST, PUT, PATCH and DELETE.
package web
