package sqlitefile

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	cause := errors.New("x")
	for _, tc := range []struct{ err, want string }{
		{"file is not a database (26)", "move it away"},
		{"database is locked (5) (SQLITE_BUSY)", "another process is writing"},
		{"attempt to write a readonly database (8)", "check its permissions"},
		{"disk I/O error", "save: /d/hearth.db: disk I/O error"},
	} {
		err := Explain("save", "/d/hearth.db", errors.Join(errors.New(tc.err), cause))
		if !strings.Contains(err.Error(), tc.want) || !errors.Is(err, cause) {
			t.Errorf("%s: %v", tc.err, err)
		}
	}
	if Explain("save", "p", nil) != nil {
		t.Error("nil error explained")
	}
}

func TestDSN(t *testing.T) {
	dir := t.TempDir()
	d, err := DSN(dir+"/sub/hearth.db", "synchronous(FULL)")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"file:" + dir + "/sub/hearth.db?", "journal_mode%28WAL%29", "synchronous%28FULL%29", "_txlock=immediate"} {
		if !strings.Contains(d, want) {
			t.Errorf("DSN %q lacks %q", d, want)
		}
	}
	if _, err := os.Stat(dir + "/sub"); err != nil {
		t.Errorf("directory not created: %v", err)
	}
	if _, err := DSN(dir + "/a?mode=ro"); err == nil {
		t.Error("a path with ? accepted")
	}
}
