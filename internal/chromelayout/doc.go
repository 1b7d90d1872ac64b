// Package chromelayout watches a Chromium page, driven by chromedp, for
// layout shifts: it installs a PerformanceObserver in every document the
// tab loads that keeps each layout-shift entry with the elements that
// moved (described when the entry arrives, since a node may leave the
// page later), reads the entries back and sums and describes them around
// a mark. The browser tests in web/chromiumtest and foundry/chromiumtest
// measure layout shift only through it.
package chromelayout
