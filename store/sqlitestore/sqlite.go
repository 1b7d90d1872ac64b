package sqlitestore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/hearth-rpg/hearth/internal/sqlitedb"
	"github.com/hearth-rpg/hearth/internal/sqlitefile"
	"github.com/hearth-rpg/hearth/narrative/sqlitenarrative"
	"github.com/hearth-rpg/hearth/store"
)

// FileName is the database file inside a data directory.
const FileName = sqlitedb.FileName

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the store's numbered files, for a handle shared with
// the other stores (see package database). A turn's memory events go to
// the narrative tables, so a handle that stores turns with memories also
// needs sqlitenarrative.Migrations.
var Migrations = sqlitedb.Migrations{Component: "store", FS: migrations, Dir: "migrations",
	Legacy: "schema_migrations", What: "the sessions and turns"}

// DB is a store.Store in one SQLite file.
type DB struct {
	h    *sqlitedb.DB
	own  bool // Close closes h: it was opened by Open
	path string
	w    *sql.DB // one connection: all writes
	r    *sql.DB // a pool for reads

	mu       sync.Mutex
	branches map[string]store.Branch // branches never change once made
	stmts    sqlitedb.Stmts          // the hot statements, prepared once
}

var _ store.Store = (*DB)(nil)

type options struct {
	synchronousNormal bool
}

// Option configures Open.
type Option func(*options)

// WithSynchronousNormal trades durability against power loss for speed:
// with NORMAL, a crash of the process still loses nothing committed, but
// a power cut may lose the last transactions. The default is FULL.
func WithSynchronousNormal() Option {
	return func(o *options) { o.synchronousNormal = true }
}

// DefaultDir is where Hearth keeps data when --data is not given:
// $HEARTH_DATA if set, else $XDG_DATA_HOME/hearth or ~/.local/share/hearth
// on Linux and other Unix systems, ~/Library/Application Support/Hearth on
// macOS, %LocalAppData%\Hearth on Windows.
func DefaultDir() (string, error) {
	if d := os.Getenv("HEARTH_DATA"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "Hearth"), nil
		}
	case "darwin":
		if err == nil {
			return filepath.Join(home, "Library", "Application Support", "Hearth"), nil
		}
	default:
		if d := os.Getenv("XDG_DATA_HOME"); d != "" {
			return filepath.Join(d, "hearth"), nil
		}
		if err == nil {
			return filepath.Join(home, ".local", "share", "hearth"), nil
		}
	}
	return "", fmt.Errorf("no home directory to keep data in (%v); set HEARTH_DATA", err)
}

// New stores sessions in the shared handle h, whose migrations must
// include Migrations and sqlitenarrative.Migrations. Close does not close h.
func New(h *sqlitedb.DB) *DB {
	return &DB{h: h, path: h.Path(), w: h.Writer(), r: h.Reader(), branches: map[string]store.Branch{}, stmts: sqlitedb.Stmts{What: "the game store"}}
}

// Open opens (creating if needed) the database in dir with the store's
// tables (and the narrative tables a turn's memory events go to) brought
// up to date, for tests and tools. Hearth itself opens every store at
// once (package database).
func Open(ctx context.Context, dir string, opts ...Option) (*DB, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	h, err := sqlitedb.Open(ctx, filepath.Join(dir, FileName), sqlitedb.Options{
		Migrations: []sqlitedb.Migrations{Migrations, sqlitenarrative.Migrations}, SynchronousNormal: o.synchronousNormal})
	if err != nil {
		return nil, err
	}
	db := New(h)
	db.own = true
	return db, nil
}

// Path returns the database file's path.
func (db *DB) Path() string { return db.path }

// Close closes the prepared statements, and the database when Open opened
// it; a shared handle stays open.
func (db *DB) Close() error {
	errs := []error{db.stmts.Close()}
	if db.own {
		errs = append(errs, db.h.Close())
	}
	return errors.Join(errs...)
}

// stmt returns query prepared on pool, preparing it on first use.
func (db *DB) stmt(ctx context.Context, pool *sql.DB, query string) (*sql.Stmt, error) {
	return db.stmts.Get(ctx, pool, query)
}

// explain turns SQLite's errors into ones that say what to do.
func (db *DB) explain(doing string, err error) error {
	return sqlitefile.Explain(doing, db.path, err)
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func now() int64 { return time.Now().UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }
