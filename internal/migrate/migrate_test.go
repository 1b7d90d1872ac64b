package migrate_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"testing/fstest"

	_ "modernc.org/sqlite"

	"github.com/hearth-rpg/hearth/internal/migrate"
)

func TestApply(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v1 := fstest.MapFS{"m/0001_a.sql": {Data: []byte(`CREATE TABLE a (x INTEGER);`)}}
	if err := migrate.Apply(ctx, db, v1, "m", "t_schema", "the test tables"); err != nil {
		t.Fatal(err)
	}
	v2 := fstest.MapFS{"m/0001_a.sql": v1["m/0001_a.sql"], "m/0002_b.sql": {Data: []byte(`INSERT INTO a VALUES (7);`)}}
	for range 2 { // the second run applies nothing again
		if err := migrate.Apply(ctx, db, v2, "m", "t_schema", "the test tables"); err != nil {
			t.Fatal(err)
		}
	}
	var n, versions int
	db.QueryRow(`SELECT COUNT(*) FROM a`).Scan(&n)
	db.QueryRow(`SELECT COUNT(*) FROM t_schema`).Scan(&versions)
	if n != 1 || versions != 2 {
		t.Errorf("rows %d, versions %d; want 1 and 2", n, versions)
	}
	bad := fstest.MapFS{"m/0001_a.sql": v1["m/0001_a.sql"], "m/0002_b.sql": v2["m/0002_b.sql"], "m/0003_c.sql": {Data: []byte(`CREATE TABLE c (; broken`)}}
	if err := migrate.Apply(ctx, db, bad, "m", "t_schema", "the test tables"); err == nil {
		t.Error("a broken migration was applied")
	}
	db.QueryRow(`SELECT MAX(version) FROM t_schema`).Scan(&versions)
	if versions != 2 {
		t.Errorf("a failed migration was recorded: version %d", versions)
	}
	if err := migrate.Apply(ctx, db, v1, "m", "t_schema", "the test tables"); !errors.Is(err, migrate.ErrNewer) {
		t.Errorf("an older Hearth opening a newer database: %v", err)
	}
}
