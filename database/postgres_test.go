package database_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/database"
)

// A postgres:// database.url is refused while stores are missing from
// the PostgreSQL backend, naming them, and nothing falls back to SQLite.
func TestOpenRefusesPostgresUntilEveryStoreIsPorted(t *testing.T) {
	const pw = "pg-pw-3f8e"
	tests := []struct {
		name, url string
		code      hearth.Code
		says      []string
	}{
		{"postgres", "postgres://hearth:" + pw + "@127.0.0.1:5432/hearth", hearth.Unavailable,
			[]string{"narrative memory", "the lore index", "the document library", "sessions and turns", "leave database.url empty"}},
		{"postgresql", "postgresql://hearth@db.lan/hearth?password=" + pw, hearth.Unavailable, []string{"the lore index"}},
		{"another database", "mysql://hearth:" + pw + "@db/hearth", hearth.Invalid, []string{"postgres://"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			db, err := database.Open(context.Background(), dir, database.WithURL(tt.url))
			if err == nil {
				db.Close()
				t.Fatal("opened")
			}
			if got := hearth.ErrorCode(err); got != tt.code {
				t.Errorf("code %v, want %v: %v", got, tt.code, err)
			}
			for _, s := range tt.says {
				if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(s)) {
					t.Errorf("the error does not say %q: %v", s, err)
				}
			}
			if strings.Contains(err.Error(), pw) {
				t.Errorf("the error shows the password: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, database.FileName)); !os.IsNotExist(err) {
				t.Errorf("a SQLite file was made in the data directory: %v", err)
			}
		})
	}
}
