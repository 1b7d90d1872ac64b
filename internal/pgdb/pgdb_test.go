package pgdb_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
)

var ctx = context.Background()

func set(component string, files map[string]string) pgdb.Migrations {
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys["m/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	return pgdb.Migrations{Component: component, FS: fsys, Dir: "m"}
}

func open(t *testing.T, url string, sets ...pgdb.Migrations) (*pgdb.DB, error) {
	t.Helper()
	db, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: sets})
	if err == nil {
		t.Cleanup(func() { db.Close() })
	}
	return db, err
}

func versions(t *testing.T, db *pgdb.DB) string {
	t.Helper()
	var s string
	err := db.Pool().QueryRow(ctx, `SELECT COALESCE(string_agg(component || ':' || version, ' ' ORDER BY component, version), '') FROM hearth_schema`).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func count(t *testing.T, db *pgdb.DB, table string) int {
	t.Helper()
	var n int
	if err := db.Pool().QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// b's migration reads a's table: it only works if a's set goes first, and
// files within a set go by number, not by map order.
var (
	setA = set("a", map[string]string{"0002_fill.sql": `INSERT INTO a VALUES (1);`, "0001_make.sql": `CREATE TABLE a (x INTEGER); CREATE TABLE a2 (y INTEGER);`, "0010_more.sql": `INSERT INTO a VALUES (10);`})
	setB = set("b", map[string]string{"0001_copy.sql": `CREATE TABLE b AS SELECT x FROM a;`})
)

func TestOpenAppliesInOrderOnce(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	for range 3 { // later opens apply nothing
		db, err := open(t, url, setA, setB)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := versions(t, db), "a:1 a:2 a:10 b:1"; got != want {
			t.Errorf("versions %q, want %q", got, want)
		}
		if na, nb := count(t, db, "a"), count(t, db, "b"); na != 2 || nb != 2 {
			t.Errorf("a has %d rows, b %d; want 2 and 2", na, nb)
		}
		db.Close()
	}
}

// Servers started together against one database migrate it once: every
// insert would run once per server otherwise.
func TestConcurrentOpensMigrateOnce(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	const servers = 6
	var wg sync.WaitGroup
	errs := make([]error, servers)
	for i := range servers {
		wg.Go(func() {
			db, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: []pgdb.Migrations{setA, setB}})
			if err == nil {
				db.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("server %d: %v", i, err)
		}
	}
	db, err := open(t, url, setA, setB)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := versions(t, db), "a:1 a:2 a:10 b:1"; got != want {
		t.Errorf("versions %q, want %q", got, want)
	}
	if na, nb := count(t, db, "a"), count(t, db, "b"); na != 2 || nb != 2 {
		t.Errorf("a has %d rows, b %d; want 2 and 2", na, nb)
	}
}

func TestOpenRefusesNewer(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	two := set("a", map[string]string{"0001_make.sql": `CREATE TABLE a (x INTEGER);`, "0002_fill.sql": `INSERT INTO a VALUES (1);`})
	db, err := open(t, url, two)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	one := set("a", map[string]string{"0001_make.sql": `CREATE TABLE a (x INTEGER);`})
	other := set("z", map[string]string{"0001_z.sql": `CREATE TABLE z (x INTEGER);`})
	_, err = open(t, url, other, one)
	if !errors.Is(err, pgdb.ErrNewer) {
		t.Fatalf("open with an older Hearth: %v, want ErrNewer", err)
	}
	if !strings.Contains(err.Error(), "schema 2") {
		t.Errorf("the error does not say the version: %v", err)
	}
	// Nothing was applied before the refusal.
	db, err = open(t, url, two)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	db.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE tablename = 'z' AND schemaname = current_schema()`).Scan(&n)
	if n != 0 {
		t.Error("a refused open applied another set")
	}
}

// A failing file leaves neither its changes nor its version row.
func TestFailedMigrationRollsBack(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	bad := set("a", map[string]string{"0001_make.sql": `CREATE TABLE a (x INTEGER);`, "0002_bad.sql": `INSERT INTO a VALUES (1); SELECT nonsense FROM nowhere;`})
	if _, err := open(t, url, bad); err == nil || !strings.Contains(err.Error(), "0002_bad.sql") {
		t.Fatalf("open with a bad migration: %v", err)
	}
	db, err := open(t, url, set("a", map[string]string{"0001_make.sql": `CREATE TABLE a (x INTEGER);`}))
	if err != nil {
		t.Fatal(err)
	}
	if got := versions(t, db); got != "a:1" {
		t.Errorf("versions %q, want a:1", got)
	}
	if n := count(t, db, "a"); n != 0 {
		t.Errorf("the failed file's insert stayed: %d rows", n)
	}
}

func TestOpenErrorsHideThePassword(t *testing.T) {
	tests := []struct {
		name, url string
		says      []string
	}{
		{"unreachable", "postgres://hearth:s3cret-pw@127.0.0.1:1/hearth?sslmode=disable&connect_timeout=5",
			[]string{"cannot reach PostgreSQL at 127.0.0.1:1", "is it running? check database.url"}},
		{"malformed", "postgres://hearth:s3cret-pw@127.0.0.1:notaport/hearth", []string{"not a valid postgres:// URL"}},
	}
	if base := os.Getenv(pgtest.Env); base != "" {
		// The test server answers, but there is no such database.
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		u.User, u.Path = url.UserPassword(u.User.Username(), "s3cret-pw"), "/no_such_db_here"
		tests = append(tests, struct {
			name, url string
			says      []string
		}{"no such database", u.String(), []string{"refused database \"no_such_db_here\"", "check the user, password and database name"}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pgdb.Open(ctx, tt.url, pgdb.Options{})
			if err == nil {
				t.Fatal("opened")
			}
			if strings.Contains(err.Error(), "s3cret-pw") {
				t.Errorf("the error shows the password: %v", err)
			}
			for _, w := range tt.says {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q: %v", w, err)
				}
			}
		})
	}
}

// While another session holds the schema's migration lock, Open waits for
// it and applies nothing; cancelled, it gives up and leaves no trace.
func TestOpenWaitsForTheMigrationLock(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	holder, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	const lockClass = 0x4845_4152 // pgdb's
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext(current_schema()))`, lockClass); err != nil {
		t.Fatal(err)
	}
	octx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := pgdb.Open(octx, url, pgdb.Options{Migrations: []pgdb.Migrations{setA}})
		done <- err
	}()
	// Wait until Open is queued on the lock: an advisory lock not granted.
	for {
		var waiting int
		if err := holder.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = $1 AND objid = hashtext(current_schema())::oid`, lockClass).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Open finished while the lock was held: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled Open succeeded")
	}
	var tables int
	if err := holder.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Errorf("Open made %d tables without the lock", tables)
	}
	// Released, the next Open migrates.
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_unlock($1, hashtext(current_schema()))`, lockClass); err != nil {
		t.Fatal(err)
	}
	db, err := open(t, url, setA)
	if err != nil {
		t.Fatal(err)
	}
	if got := versions(t, db); got != "a:1 a:2 a:10" {
		t.Errorf("versions %q", got)
	}
}
