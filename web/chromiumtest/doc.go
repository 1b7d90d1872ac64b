// Package chromiumtest drives Hearth's web UI in a real Chromium (Debian's
// /usr/bin/chromium, through chromedp) against a real `hearth serve` on
// 127.0.0.1: sign-in, games, play, restore and fork, transcripts, inert
// rendering of hostile campaign text, CSRF and the CSP. It holds tests
// only; they skip when Chromium is absent. Screenshots of each view at 390
// and 1440 px go to $HEARTH_TEST_OUTPUT, else to the test's temporary
// directory.
package chromiumtest
