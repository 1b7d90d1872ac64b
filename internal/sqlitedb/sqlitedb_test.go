package sqlitedb_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hearth-rpg/hearth/internal/sqlitedb"
)

func set(component string, files map[string]string) sqlitedb.Migrations {
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys["m/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	return sqlitedb.Migrations{Component: component, FS: fsys, Dir: "m"}
}

func open(t *testing.T, path string, sets ...sqlitedb.Migrations) (*sqlitedb.DB, error) {
	t.Helper()
	db, err := sqlitedb.Open(context.Background(), path, sqlitedb.Options{Migrations: sets})
	if err == nil {
		t.Cleanup(func() { db.Close() })
	}
	return db, err
}

func versions(t *testing.T, db *sqlitedb.DB) string {
	t.Helper()
	rows, err := db.Reader().Query(`SELECT component || ':' || version FROM hearth_schema ORDER BY component, version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestOpenAppliesInOrderOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hearth.db")
	// b's migration reads a's table: it only works if a's sets go first,
	// and files within a set go by number, not by map order.
	a := set("a", map[string]string{"0002_fill.sql": `INSERT INTO a VALUES (1);`, "0001_make.sql": `CREATE TABLE a (x INTEGER);`, "0010_more.sql": `INSERT INTO a VALUES (10);`})
	b := set("b", map[string]string{"0001_copy.sql": `CREATE TABLE b AS SELECT x FROM a;`})
	for range 3 { // later opens apply nothing
		db, err := open(t, path, a, b)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := versions(t, db), "a:1 a:2 a:10 b:1"; got != want {
			t.Errorf("versions %q, want %q", got, want)
		}
		var na, nb int
		db.Reader().QueryRow(`SELECT count(*) FROM a`).Scan(&na)
		db.Reader().QueryRow(`SELECT count(*) FROM b`).Scan(&nb)
		if na != 2 || nb != 2 {
			t.Errorf("a has %d rows, b %d; want 2 and 2", na, nb)
		}
		db.Close()
	}
}

func TestOpenRefusesNewer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hearth.db")
	two := set("a", map[string]string{"0001_make.sql": `CREATE TABLE a (x INTEGER);`, "0002_fill.sql": `INSERT INTO a VALUES (1);`})
	db, err := open(t, path, two)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	one := set("a", map[string]string{"0001_make.sql": `CREATE TABLE a (x INTEGER);`})
	other := set("z", map[string]string{"0001_z.sql": `CREATE TABLE z (x INTEGER);`})
	_, err = open(t, path, other, one)
	if !errors.Is(err, sqlitedb.ErrNewer) || !strings.Contains(err.Error(), "upgrade Hearth") {
		t.Fatalf("an older Hearth opening a newer database: %v", err)
	}
	// Refused before anything was applied, even to the sets before it.
	db, err = open(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := versions(t, db); got != "a:1 a:2" {
		t.Errorf("versions after the refusal: %q", got)
	}
}

func TestFailingMigrationIsNotRecorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hearth.db")
	bad := set("a", map[string]string{
		"0001_make.sql":  `CREATE TABLE a (x INTEGER);`,
		"0002_half.sql":  `INSERT INTO a VALUES (1); CREATE TABLE c (; broken`,
		"0003_never.sql": `INSERT INTO a VALUES (3);`,
	})
	if _, err := open(t, path, bad); err == nil || !strings.Contains(err.Error(), "0002_half.sql") {
		t.Fatalf("a broken migration: %v", err)
	}
	db, err := open(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := versions(t, db); got != "a:1" {
		t.Errorf("versions %q, want only a:1", got)
	}
	var n int
	db.Reader().QueryRow(`SELECT count(*) FROM a`).Scan(&n)
	if n != 0 {
		t.Errorf("the failed migration's insert stayed: %d rows", n)
	}
}

func TestOpenAdoptsRound1Tables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hearth.db")
	// Round 1: each store kept (version, applied_at) in its own table.
	old, err := open(t, path, set("setup", map[string]string{"0001_x.sql": `
		CREATE TABLE a (x INTEGER);
		CREATE TABLE a_schema (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL DEFAULT 0);
		INSERT INTO a_schema VALUES (1, 5), (2, 6);`}))
	if err != nil {
		t.Fatal(err)
	}
	old.Close()
	a := set("a", map[string]string{"0001_make.sql": `CREATE TABLE a (x INTEGER);`, "0002_x.sql": `SELECT 1;`, "0003_fill.sql": `INSERT INTO a VALUES (3);`})
	a.Legacy = "a_schema"
	b := set("b", map[string]string{"0001_b.sql": `CREATE TABLE b (x INTEGER);`})
	b.Legacy = "b_schema" // absent: nothing to adopt
	for range 2 {
		db, err := open(t, path, a, b)
		if err != nil {
			t.Fatal(err)
		}
		var ver, n, tables int
		db.Reader().QueryRow(`SELECT MAX(version) FROM hearth_schema WHERE component = 'a'`).Scan(&ver)
		db.Reader().QueryRow(`SELECT count(*) FROM a`).Scan(&n)
		db.Reader().QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'a_schema'`).Scan(&tables)
		if ver != 3 || n != 1 || tables != 0 {
			t.Errorf("after adoption: version %d, rows %d, old tables %d; want 3, 1, 0", ver, n, tables)
		}
		db.Close()
	}
}

func TestReaderIsReadOnly(t *testing.T) {
	db, err := open(t, filepath.Join(t.TempDir(), "hearth.db"), set("a", map[string]string{"0001_x.sql": `CREATE TABLE a (x INTEGER);`}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Reader().Exec(`INSERT INTO a VALUES (1)`); err == nil {
		t.Error("the reader wrote")
	}
	if _, err := db.Writer().Exec(`INSERT INTO a VALUES (1)`); err != nil {
		t.Error(err)
	}
}

func TestOpenExplains(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hearth.db")
	if err := writeFile(path, "not a database at all, just some text that is long enough to be a header"); err != nil {
		t.Fatal(err)
	}
	_, err := open(t, path, set("a", map[string]string{"0001_x.sql": `CREATE TABLE a (x INTEGER);`}))
	if err == nil || !strings.Contains(err.Error(), "not a Hearth database") {
		t.Errorf("opening a text file: %v", err)
	}
}

// A burst of reads that takes every reader connection leaves them all
// open: closing and reopening them (database/sql keeps two idle by
// default) cost a burst of requests their setup and prepared statements.
func TestReadersStayOpenWhenIdle(t *testing.T) {
	db, err := open(t, filepath.Join(t.TempDir(), "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := db.Reader()
	n := r.Stats().MaxOpenConnections
	if n < 4 {
		t.Fatalf("%d readers, want at least 4", n)
	}
	for range 3 {
		var conns []*sql.Conn
		for range n {
			c, err := r.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		for _, c := range conns {
			c.Close()
		}
	}
	if s := r.Stats(); s.MaxIdleClosed != 0 || s.Idle != n || s.OpenConnections != n {
		t.Errorf("after three bursts: %d idle of %d open, %d closed for being idle; want all %d kept open", s.Idle, s.OpenConnections, s.MaxIdleClosed, n)
	}
}
