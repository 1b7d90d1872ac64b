package chromiumtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/hearth-rpg/hearth/internal/chromelayout"
)

// tooWide names what sticks out past the viewport's right edge: the
// page must not scroll sideways at a phone's width.
const tooWide = `(() => {
	const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.classList.length ? "." + Array.from(e.classList).join(".") : "");
	const out = Array.from(document.body.querySelectorAll("*")).filter((e) => {
		const r = e.getBoundingClientRect();
		return r.width > 0 && r.right > innerWidth + 0.5;
	}).map((e) => name(e) + " to " + Math.round(e.getBoundingClientRect().right) + " px");
	return {scroll: document.documentElement.scrollWidth, inner: innerWidth, out: out.slice(0, 12)};
})()`

// markControls lists the page's controls a keyboard user must reach
// (shown, enabled, not taken out of the tab order; an element with a
// control's role counts, focusable or not; of a group of radio buttons,
// one stands for the group, as Tab enters a group once) and starts
// recording which of them take the focus.
const markControls = `(() => {
	const shown = (e) => { const r = e.getBoundingClientRect();
		return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility === "visible" && !e.closest("[hidden], [inert]"); };
	const seen = new Set();
	window.__controls = Array.from(document.querySelectorAll(
		"a[href], button, input, select, textarea, summary, [tabindex], [role=button], [role=link], [role=tab], [role=checkbox], [role=radio], [role=switch]")).filter((e) => {
		// Taken out on purpose (tabindex="-1"), not merely unfocusable.
		if (e.disabled || (e.tabIndex < 0 && e.hasAttribute("tabindex")) || e.type === "hidden" || !shown(e)) return false;
		if (e.type === "radio") {
			if (seen.has(e.name)) return false;
			seen.add(e.name);
		}
		return true;
	});
	window.__reached = new Set();
	if (!window.__focusWatch) {
		window.__focusWatch = true;
		document.addEventListener("focusin", (ev) => {
			const e = ev.target;
			window.__reached.add(e.type === "radio" ? "radio:" + e.name : e);
		});
	}
	document.activeElement && document.activeElement.blur && document.activeElement.blur();
	return window.__controls.length;
})()`

// unreached names the marked controls that have not had the focus.
const unreached = `(() => {
	const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.name ? "[name=" + e.name + "]" : "") +
		(e.classList.length ? "." + Array.from(e.classList).join(".") : "") + (e.textContent.trim() ? " “" + e.textContent.trim().slice(0, 30) + "”" : "");
	return window.__controls.filter((e) => !window.__reached.has(e) && !(e.type === "radio" && window.__reached.has("radio:" + e.name))).map(name);
})()`

// narrowChecks holds the view shown to a phone's width: nothing wider
// than the viewport, and every control reached by Tab, pressed from the
// top of the page until each has had the focus (or twice as many times
// as there are controls, and a few).
func narrowChecks(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	var wide struct {
		Scroll, Inner int
		Out           []string
	}
	eval(t, ctx, tooWide, &wide)
	if wide.Scroll > wide.Inner || len(wide.Out) > 0 {
		t.Errorf("%s: the page is %d px wide in a %d px viewport; sticking out: %s", what, wide.Scroll, wide.Inner, strings.Join(wide.Out, ", "))
	}
	var n int
	eval(t, ctx, markControls, &n)
	if n == 0 {
		t.Fatalf("%s: no controls found", what)
	}
	var left []string
	for range 2*n + 5 {
		run(t, ctx, "Tab", chromedp.KeyEvent(kb.Tab))
		eval(t, ctx, unreached, &left)
		if len(left) == 0 {
			break
		}
	}
	t.Logf("%s: %d px wide in %d; %d controls, unreached by Tab: %v", what, wide.Scroll, wide.Inner, n, left)
	if len(left) > 0 {
		t.Errorf("%s: Tab never reached %s", what, strings.Join(left, ", "))
	}
}

// TestLibraryAndWizardLayoutNarrow opens the library (a document listed,
// then a search's results) and the character wizard (each of its steps)
// at a phone's 390 × 844 px, in English and German: after its first
// paint neither view moves (a layout shift of 0), nothing is wider than
// the viewport, and Tab reaches every control.
func TestLibraryAndWizardLayoutNarrow(t *testing.T) {
	h := serveEnv(t, func(data string) {
		book := filepath.Join(t.TempDir(), "lantern.md")
		if err := os.WriteFile(book, []byte("# The Lantern\n\nThe lantern keeper trims the wick at dusk and buys lantern oil from the chandler of Saltmere harbour.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bin, "ingest", book, "--title", "The Lantern Keeper's Almanac of Harbour Lights", "--data", data).CombinedOutput(); err != nil {
			t.Fatalf("hearth ingest: %v\n%s", err, out)
		}
	})
	for _, lang := range []string{"en", "de"} {
		t.Run(lang, func(t *testing.T) {
			ctx := browse(t)
			signIn(t, ctx, h)
			run(t, ctx, "speak "+lang, chromedp.Evaluate(`localStorage.setItem("hearth.lang", `+jsString(lang)+`)`, nil))
			watchShifts(t, ctx)
			run(t, ctx, "the library afresh at 390 px",
				chromedp.EmulateViewport(390, 844),
				afresh(h.url+"/#/library"),
				chromedp.WaitVisible(`html[lang="`+lang+`"] #documents tbody tr[data-document]`, chromedp.ByQuery),
				settled())
			after, shell, report := shiftsSince(t, ctx, "upload")
			t.Log("library: " + report)
			if after != 0 {
				t.Errorf("the library moved by %.4f after its upload form showed: %s", after, report)
			}
			if shell > maxGameShift {
				t.Errorf("the shell moved by %.4f as it became the library: %s", shell, report)
			}
			narrowChecks(t, ctx, "library")
			run(t, ctx, "search",
				chromedp.SetValue("#search-q", "lantern oil", chromedp.ByQuery),
				chromedp.SendKeys("#search-q", kb.Enter, chromedp.ByQuery),
				chromedp.WaitVisible(`#search-summary`, chromedp.ByQuery),
				settled())
			narrowChecks(t, ctx, "library, a search's results")

			run(t, ctx, "the wizard afresh at 390 px",
				afresh(h.url+"/#/characters/new"),
				chromedp.WaitVisible(`html[lang="`+lang+`"]`, chromedp.ByQuery),
				step("race"),
				settled())
			after, shell, report = shiftsSince(t, ctx, "wizard")
			t.Log("wizard: " + report)
			if after != 0 {
				t.Errorf("the wizard moved by %.4f after its first step showed: %s", after, report)
			}
			if shell > maxGameShift {
				t.Errorf("the shell moved by %.4f as it became the wizard: %s", shell, report)
			}
			narrowChecks(t, ctx, "wizard, race")
			for _, s := range []string{"class", "background", "abilities", "skills", "story"} {
				tabTo(t, ctx, "#wizard-next")
				run(t, ctx, "Enter to "+s, chromedp.KeyEvent("\r"), step(s), settled())
				narrowChecks(t, ctx, "wizard, "+s)
			}
			// Shifts within half a second of a key are the user's own (the
			// next step replacing this one), and browsers leave them out;
			// any other after the first step counts.
			_, _, report = shiftsSince(t, ctx, "wizard")
			t.Log("wizard, through the steps: " + report)
			var mark float64
			eval(t, ctx, `window.__marks.wizard`, &mark)
			shifts, err := chromelayout.Shifts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var unasked float64
			for _, s := range shifts {
				if s.At >= mark && !s.Input {
					unasked += s.Value
				}
			}
			if unasked != 0 {
				t.Errorf("through its steps the wizard moved by %.4f not within half a second of a key: %s", unasked, report)
			}
		})
	}
}
