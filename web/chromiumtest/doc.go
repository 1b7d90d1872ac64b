// Package chromiumtest drives Hearth's web UI in a real Chromium (Debian's
// /usr/bin/chromium, through chromedp) against a real `hearth serve` on
// 127.0.0.1: sign-in, games, play, restore and fork, transcripts, inert
// rendering of hostile campaign text, CSRF and the CSP. It holds tests
// only; they skip when Chromium is absent. Screenshots of each view at 390
// and 1440 px go to $HEARTH_TEST_OUTPUT, else to the test's temporary
// directory. HEARTH_TEST_CPU_THROTTLE=N runs the pages N times slower
// (Chromium's CPU throttling), to bring out races between a page and the
// server. A failed test logs, before its browsers close, where each page
// was, the server's games and the server's goroutines, after the server's
// own log (at debug: each request, game connection, command and turn).
// Every click is a real press of the mouse through internal/chromeclick,
// which waits until its target is shown, enabled, still and uncovered;
// the layout tests measure how far the views move as they fill in,
// through internal/chromelayout's layout-shift watcher.
package chromiumtest
