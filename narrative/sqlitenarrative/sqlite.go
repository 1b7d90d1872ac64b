package sqlitenarrative

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/hearth-rpg/hearth/internal/sqlitedb"
	"github.com/hearth-rpg/hearth/internal/sqlitefile"
	"github.com/hearth-rpg/hearth/narrative"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the narrative tables' numbered files, for a handle
// shared with the other stores (see package database).
var Migrations = sqlitedb.Migrations{Component: "narrative", FS: migrations, Dir: "migrations",
	Legacy: "narrative_schema", What: "the narrative tables"}

// DB is a playthrough's narrative memory in one SQLite file.
type DB struct {
	h    *sqlitedb.DB
	own  bool // Close closes h: it was opened by Open
	path string
	w    *sql.DB // one connection: all writes
	r    *sql.DB // a pool for reads
	o    options

	// loading serialises index loads and catch-ups, so each event is
	// added to an index once.
	loading sync.Mutex
	mu      sync.RWMutex       // guards idx and each index
	idx     map[string]*loaded // by playthrough, once loaded
	// newer reads a playthrough's events after an ID: every recall asks
	// it, so it is prepared once (under loading) rather than parsed each
	// time.
	newer *sql.Stmt
}

var _ narrative.Store = (*DB)(nil)

// loaded is a playthrough's recall index and the last event it holds:
// events are added in ID order as they are read back after commit, by
// whoever committed them (a turn, Remember, another process).
type loaded struct {
	x    *narrative.Index
	last int64
}

type options struct {
	embedder    narrative.Embedder
	reputation  narrative.ReputationConfig
	perception  narrative.PerceptionConfig
	index       narrative.IndexOptions
	log         *slog.Logger
	synchronous string
}

// Option configures Open.
type Option func(*options)

// WithEmbedder embeds the summaries of events stored without an
// embedding and the text of queries that come without a vector. Without
// one, recall by text uses the lexical fallback.
func WithEmbedder(e narrative.Embedder) Option { return func(o *options) { o.embedder = e } }

// WithReputation sets the reputation scale and decay (default -100..100,
// 10% a week, slower from ±50).
func WithReputation(c narrative.ReputationConfig) Option {
	return func(o *options) { o.reputation = c }
}

// WithPerception sets how first impressions are weighed and how
// perception decays (default: the seed's).
func WithPerception(c narrative.PerceptionConfig) Option {
	return func(o *options) { o.perception = c }
}

// WithIndex tunes the in-memory recall index.
func WithIndex(io narrative.IndexOptions) Option { return func(o *options) { o.index = io } }

// WithLogger logs each recall's latency, result count and scope at debug
// level, and embedding failures (which fall back to lexical recall) as
// warnings. The default discards.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithSynchronousNormal trades durability against power loss for write
// speed: a crashed process still loses nothing committed, a power cut may
// lose the last transactions. The default is FULL.
func WithSynchronousNormal() Option { return func(o *options) { o.synchronous = "NORMAL" } }

// New serves narrative memory from the shared handle h, whose
// migrations must include Migrations. Close does not close h.
func New(ctx context.Context, h *sqlitedb.DB, opts ...Option) (*DB, error) {
	o := options{synchronous: "FULL"}
	for _, f := range opts {
		f(&o)
	}
	o.reputation = o.reputation.WithDefaults()
	o.perception = o.perception.WithDefaults()
	if err := o.reputation.Validate(); err != nil {
		return nil, fmt.Errorf("narrative database: reputation settings: %w", err)
	}
	if err := o.perception.Validate(); err != nil {
		return nil, fmt.Errorf("narrative database: perception settings: %w", err)
	}
	if o.log == nil {
		o.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &DB{h: h, path: h.Path(), w: h.Writer(), r: h.Reader(), o: o, idx: map[string]*loaded{}}, nil
}

// Open opens (creating if needed) the database file at path with only
// the narrative tables brought up to date, for tests and tools; the file
// may hold other tables too. Hearth itself opens every store at once
// (package database).
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) {
	o := options{synchronous: "FULL"}
	for _, f := range opts {
		f(&o)
	}
	if path == "" {
		return nil, errors.New("open narrative memory: the database path is empty")
	}
	h, err := sqlitedb.Open(ctx, path, sqlitedb.Options{Migrations: []sqlitedb.Migrations{Migrations},
		SynchronousNormal: o.synchronous == "NORMAL"})
	if err != nil {
		return nil, fmt.Errorf("open narrative memory: %w", err)
	}
	db, err := New(ctx, h, opts...)
	if err != nil {
		h.Close()
		return nil, err
	}
	db.own = true
	return db, nil
}

// Path returns the database file's path.
func (db *DB) Path() string { return db.path }

// Close closes the database when Open opened it; over a shared handle it
// does nothing.
func (db *DB) Close() error {
	db.loading.Lock()
	if db.newer != nil {
		db.newer.Close()
		db.newer = nil
	}
	db.loading.Unlock()
	if db.own {
		return db.h.Close()
	}
	return nil
}

// tx runs f in a write transaction, committing if it returns nil.
func (db *DB) tx(ctx context.Context, doing string, f func(*sql.Tx) error) error {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return db.explain(doing, err)
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return db.explain(doing, err)
	}
	if err := tx.Commit(); err != nil {
		return db.explain(doing, err)
	}
	return nil
}

// explain turns SQLite's errors into ones that say what to do.
func (db *DB) explain(doing string, err error) error {
	return sqlitefile.Explain(doing, db.path, err)
}
