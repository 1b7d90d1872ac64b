package traveller

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// worldsPath is the real world list, kept beside the repository (its
// licence does not allow copying it in): ../shared/testdata/traveller/
// from the directory holding go.mod.
func worldsPath(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	return filepath.Join(dir, "..", "shared", "testdata", "traveller", "worlds.tsv")
}

// realWorlds reads the 1,552 worlds of worlds.tsv, or skips the test when
// the file is absent.
func realWorlds(tb testing.TB) []World {
	tb.Helper()
	p := worldsPath(tb)
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		tb.Skipf("real Traveller world data absent: %s does not exist (it is kept outside the repository; see SOURCE.md there)", p)
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	worlds, err := ReadWorlds(f)
	if err != nil {
		tb.Fatalf("ReadWorlds(%s): %v", p, err)
	}
	if len(worlds) != 1552 {
		tb.Fatalf("%s: read %d worlds, want the 1,552 SOURCE.md lists", p, len(worlds))
	}
	return worlds
}

// mustFind is Find for worlds a test knows are there.
func mustFind(tb testing.TB, worlds []World, q string) World {
	tb.Helper()
	w, err := Find(worlds, q)
	if err != nil {
		tb.Fatalf("Find(%q): %v", q, err)
	}
	return w
}
