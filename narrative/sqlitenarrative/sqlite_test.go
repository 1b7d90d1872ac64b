package sqlitenarrative

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/narrative/narrativetest"
)

func openDB(t *testing.T, path string, opts ...Option) *DB {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "hearth.db")
	}
	db, err := Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestConformance runs the backend-neutral suite over a SQLite file per
// store; Reopen closes the file and opens it again.
func TestConformance(t *testing.T) {
	narrativetest.Run(t, func(t *testing.T, o narrativetest.Options) narrative.Store {
		var opts []Option
		if o.Embedder != nil {
			opts = append(opts, WithEmbedder(o.Embedder))
		}
		if o.Reopen == nil {
			return openDB(t, "", opts...)
		}
		old := o.Reopen.(*DB)
		if err := old.Close(); err != nil {
			t.Fatal(err)
		}
		return openDB(t, old.Path(), opts...)
	})
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	// A file that already holds other tables.
	shared := filepath.Join(dir, "shared.db")
	raw, err := sql.Open("sqlite", "file:"+shared)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY); INSERT INTO sessions VALUES ('keep')`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db := openDB(t, shared)
	var n int
	if err := db.r.QueryRow(`SELECT count(*) FROM sessions`).Scan(&n); err != nil || n != 1 {
		t.Errorf("other tables lost: %d, %v", n, err)
	}
	if err := db.r.QueryRow(`SELECT max(version) FROM hearth_schema WHERE component = 'narrative'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("schema version %d, %v", n, err)
	}
	db.Close()
	openDB(t, shared).Close() // reopening migrates nothing and works

	// A newer schema is refused.
	raw, _ = sql.Open("sqlite", "file:"+shared)
	raw.Exec(`INSERT INTO hearth_schema VALUES ('narrative', 99, 0)`)
	raw.Close()
	if _, err := Open(ctx, shared); err == nil || !strings.Contains(err.Error(), "upgrade") {
		t.Errorf("newer schema: %v", err)
	}

	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte(strings.Repeat("not a database ", 100)), 0o600)
	if _, err := Open(ctx, junk); err == nil || !strings.Contains(err.Error(), "not a SQLite database") {
		t.Errorf("junk file: %v", err)
	}
	if _, err := Open(ctx, filepath.Join(dir, "a?b.db")); err == nil {
		t.Error("path with ? accepted")
	}
	if _, err := Open(ctx, filepath.Join(dir, "x.db"), WithReputation(narrative.ReputationConfig{Scale: narrative.Scale{Min: 0, Max: 10}})); err == nil {
		t.Error("scale without a neutral 0 accepted")
	}
}
