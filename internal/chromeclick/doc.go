// Package chromeclick clicks in a Chromium page, driven by chromedp, the
// way a user does and without missing: it waits until the element can
// take the click (shown, enabled, in view, its box still over two frames
// and nothing on top of it) and presses the mouse at its centre. A press
// that lands on something else all the same, because the page moved
// between the look and the press, is swallowed before the page sees it
// and tried again. The browser tests in web/chromiumtest and
// foundry/chromiumtest click only through it.
package chromeclick
