package chromiumtest

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestClicksGoThroughTheHelper keeps every click of the browser tests,
// here and in foundry/chromiumtest, on click (internal/chromeclick): a
// click at coordinates read once, while a view still settles, is how a
// CI run's first turn was lost.
func TestClicksGoThroughTheHelper(t *testing.T) {
	raw := regexp.MustCompile(`chromedp\.(Click|DoubleClick|MouseClickXY|MouseClickNode)\(|input\.DispatchMouseEvent`)
	files, _ := filepath.Glob("*_test.go")
	more, _ := filepath.Glob("../../foundry/chromiumtest/*_test.go")
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("found only %d test files", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, loc := range raw.FindAllIndex(b, -1) {
			t.Errorf("%s: %s clicks at coordinates; use click(selector)", f, b[loc[0]:loc[1]])
		}
	}
}
