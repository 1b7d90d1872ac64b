package sqlitefile

import (
	"errors"
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
