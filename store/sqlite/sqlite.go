package sqlite

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

	"github.com/hearth-rpg/hearth/internal/sqlitefile"

	"github.com/hearth-rpg/hearth/internal/migrate"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/hearth-rpg/hearth/store"
)

// FileName is the database file inside a data directory.
const FileName = "hearth.db"

//go:embed migrations/*.sql
var migrations embed.FS

// DB is a store.Store in one SQLite file.
type DB struct {
	path string
	w    *sql.DB // one connection: all writes
	r    *sql.DB // a pool for reads

	mu       sync.Mutex
	branches map[string]store.Branch // branches never change once made
}

var _ store.Store = (*DB)(nil)

type options struct {
	synchronous string
}

// Option configures Open.
type Option func(*options)

// WithSynchronousNormal trades durability against power loss for speed:
// with NORMAL, a crash of the process still loses nothing committed, but
// a power cut may lose the last transactions. The default is FULL.
func WithSynchronousNormal() Option {
	return func(o *options) { o.synchronous = "NORMAL" }
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

// Open opens (creating if needed) the database in dir and brings its
// schema up to date.
func Open(ctx context.Context, dir string, opts ...Option) (*DB, error) {
	o := options{synchronous: "FULL"}
	for _, f := range opts {
		f(&o)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	dsn := func(extra ...string) string {
		d, _ := sqlitefile.DSN(path, append([]string{"foreign_keys(1)", "synchronous(" + o.synchronous + ")"}, extra...)...)
		return d // the directory exists and FileName has no ? or #
	}
	w, err := sql.Open("sqlite", dsn())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	db := &DB{path: path, w: w, branches: map[string]store.Branch{}}
	if err := db.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", dsn("query_only(1)"))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	r.SetMaxOpenConns(max(4, runtime.NumCPU()))
	db.r = r
	return db, nil
}

// Path returns the database file's path.
func (db *DB) Path() string { return db.path }

// Close closes the database.
func (db *DB) Close() error {
	return errors.Join(db.r.Close(), db.w.Close())
}

// migrate applies the embedded migrations the database lacks.
func (db *DB) migrate(ctx context.Context) error {
	if err := migrate.Apply(ctx, db.w, migrations, "migrations", "schema_migrations", db.path); err != nil {
		return db.explain("open", err)
	}
	return nil
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
