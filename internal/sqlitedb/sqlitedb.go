package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/hearth-rpg/hearth/internal/sqlitefile"
)

// ErrNewer is wrapped by the error Open returns for a database written by
// a newer Hearth.
var ErrNewer = errors.New("written by a newer Hearth")

// Migrations is one store's numbered SQL files (Dir/NNNN_what.sql in FS),
// versioned under Component in hearth_schema.
type Migrations struct {
	Component string // "store", "narrative", …
	FS        fs.FS
	Dir       string
	// Legacy is the version table the component kept in round 1
	// (version INTEGER PRIMARY KEY, applied_at INTEGER); when it exists,
	// its versions are adopted and it is dropped. Empty for none.
	Legacy string
	// What names the tables in errors ("the lore index").
	What string
}

// Options configures Open.
type Options struct {
	// Migrations are applied in this order.
	Migrations []Migrations
	// SynchronousNormal trades durability against power loss for speed:
	// a crashed process still loses nothing committed, a power cut may lose
	// the last transactions. The default is FULL.
	SynchronousNormal bool
}

// DB is the handle on one SQLite file. It is safe for concurrent use.
type DB struct {
	path string
	w, r *sql.DB
}

// Open opens (creating if needed) the SQLite file at path and applies the
// migrations it lacks.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("open the database: the path is empty")
	}
	sync := "FULL"
	if opts.SynchronousNormal {
		sync = "NORMAL"
	}
	pragmas := []string{"foreign_keys(1)", "synchronous(" + sync + ")"}
	dsn, err := sqlitefile.DSN(path, pragmas...)
	if err != nil {
		return nil, fmt.Errorf("open the database: %w", err)
	}
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// One connection: writes queue here instead of failing on SQLITE_BUSY.
	w.SetMaxOpenConns(1)
	db := &DB{path: path, w: w}
	if err := migrate(ctx, w, opts.Migrations); err != nil {
		w.Close()
		return nil, db.Explain("open the database", err)
	}
	// Readers map the file rather than copy pages through read(2): on a
	// 100,000-chunk lore index, page reads were a third of a search's time.
	rdsn, _ := sqlitefile.DSN(path, append(pragmas, "query_only(1)", "mmap_size(1073741824)")...)
	r, err := sql.Open("sqlite", rdsn)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	readers := max(4, runtime.NumCPU())
	r.SetMaxOpenConns(readers)
	// All of them stay open when idle: database/sql keeps two by default,
	// so a burst of requests closed the others and opened new ones
	// (connection setup, and every prepared statement parsed again). A
	// reader unused for minutes is closed, with its page cache.
	r.SetMaxIdleConns(readers)
	r.SetConnMaxIdleTime(5 * time.Minute)
	db.r = r
	return db, nil
}

// Writer is the one connection every write goes through. A transaction
// holds it until it ends: never read through Writer or Reader inside one.
func (db *DB) Writer() *sql.DB { return db.w }

// Reader is the pool of read-only connections.
func (db *DB) Reader() *sql.DB { return db.r }

// Path returns the database file's path.
func (db *DB) Path() string { return db.path }

// Close closes both pools.
func (db *DB) Close() error { return errors.Join(db.r.Close(), db.w.Close()) }

// Explain wraps err from doing something with the database in words a
// user can act on (see sqlitefile.Explain).
func (db *DB) Explain(doing string, err error) error {
	return sqlitefile.Explain(doing, db.path, err)
}

type file struct {
	version int
	name    string
}

// migrate adopts round-1 version tables, refuses a newer database, then
// applies each set's missing files in order.
func migrate(ctx context.Context, w *sql.DB, sets []Migrations) error {
	if _, err := w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS hearth_schema (
		component  TEXT NOT NULL,
		version    INTEGER NOT NULL,
		applied_at INTEGER NOT NULL DEFAULT 0,
		PRIMARY KEY (component, version)) WITHOUT ROWID`); err != nil {
		return fmt.Errorf("prepare the schema table: %w", err)
	}
	if err := adopt(ctx, w, sets); err != nil {
		return err
	}
	files := make([][]file, len(sets))
	haves := make([]int, len(sets))
	for i, m := range sets {
		fs, err := list(m)
		if err != nil {
			return err
		}
		files[i] = fs
		if err := w.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM hearth_schema WHERE component = ?`, m.Component).Scan(&haves[i]); err != nil {
			return fmt.Errorf("read the schema version of %s: %w", m.what(), err)
		}
		latest := 0
		if len(fs) > 0 {
			latest = fs[len(fs)-1].version
		}
		if haves[i] > latest {
			return fmt.Errorf("%s is %w (schema %d; this one knows up to %d): upgrade Hearth, or use another --data directory", m.what(), ErrNewer, haves[i], latest)
		}
	}
	for i, m := range sets {
		for _, f := range files[i] {
			if f.version <= haves[i] {
				continue
			}
			body, err := fs.ReadFile(m.FS, f.name)
			if err != nil {
				return err
			}
			if err := apply(ctx, w, m.Component, f.version, string(body)); err != nil {
				return fmt.Errorf("migrate %s to %s: %w", m.what(), path.Base(f.name), err)
			}
		}
	}
	return nil
}

// list returns a set's files in version order.
func list(m Migrations) ([]file, error) {
	if m.Component == "" {
		return nil, fmt.Errorf("migrations in %s: no component name", m.Dir)
	}
	names, err := fs.Glob(m.FS, path.Join(m.Dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	var out []file
	for _, n := range names {
		v, err := strconv.Atoi(strings.SplitN(path.Base(n), "_", 2)[0])
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s of %s: its name must start with its number", n, m.what())
		}
		out = append(out, file{v, n})
	}
	slices.SortFunc(out, func(a, b file) int { return a.version - b.version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s of %s share a number", out[i-1].name, out[i].name, m.what())
		}
	}
	return out, nil
}

func apply(ctx context.Context, w *sql.DB, component string, v int, body string) error {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO hearth_schema (component, version, applied_at) VALUES (?, ?, ?)`,
		component, v, time.Now().UnixNano()); err != nil {
		return err
	}
	return tx.Commit()
}

// adopt moves the versions of round-1 version tables into hearth_schema
// and drops those tables, all in one transaction.
func adopt(ctx context.Context, w *sql.DB, sets []Migrations) error {
	var legacy []Migrations
	for _, m := range sets {
		if m.Legacy == "" {
			continue
		}
		if !validTable(m.Legacy) {
			return fmt.Errorf("migrations of %s: bad legacy table name %q", m.what(), m.Legacy)
		}
		var n int
		if err := w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, m.Legacy).Scan(&n); err != nil {
			return fmt.Errorf("look for the old schema table of %s: %w", m.what(), err)
		}
		if n > 0 {
			legacy = append(legacy, m)
		}
	}
	if len(legacy) == 0 {
		return nil
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, m := range legacy {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO hearth_schema (component, version, applied_at)
			SELECT ?, version, applied_at FROM `+m.Legacy, m.Component); err != nil {
			return fmt.Errorf("adopt the schema versions of %s from %s: %w", m.what(), m.Legacy, err)
		}
		if _, err := tx.ExecContext(ctx, `DROP TABLE `+m.Legacy); err != nil {
			return fmt.Errorf("drop the old schema table %s: %w", m.Legacy, err)
		}
	}
	return tx.Commit()
}

// validTable accepts the identifiers a version table may have, so that
// the name can be spliced into SQL.
func validTable(s string) bool {
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

func (m Migrations) what() string {
	if m.What != "" {
		return m.What
	}
	return "the " + m.Component + " tables"
}

// FileIn returns the path of the database file in a data directory.
func FileIn(dir string) string { return filepath.Join(dir, FileName) }

// FileName is the database file inside a data directory.
const FileName = "hearth.db"
