package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"

	"github.com/hearth-rpg/hearth/internal/sqlitefile"

	"github.com/hearth-rpg/hearth/internal/migrate"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/hearth-rpg/hearth/narrative"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is a playthrough's narrative memory in one SQLite file.
type DB struct {
	path string
	w    *sql.DB // one connection: all writes
	r    *sql.DB // a pool for reads
	o    options

	// writing serialises event writes with index loads, so a load never
	// misses an event committed while it reads.
	writing sync.Mutex
	mu      sync.RWMutex                // guards idx
	idx     map[string]*narrative.Index // by playthrough, once loaded
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

// Open opens (creating if needed) the database file at path and brings
// the narrative tables up to date. The file may hold other tables too.
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) {
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
	if path == "" {
		return nil, errors.New("open narrative memory: the database path is empty")
	}
	if _, err := sqlitefile.DSN(path); err != nil {
		return nil, fmt.Errorf("open narrative memory: %w", err)
	}
	dsn := func(extra ...string) string {
		d, _ := sqlitefile.DSN(path, append([]string{"synchronous(" + o.synchronous + ")"}, extra...)...)
		return d // checked above
	}
	w, err := sql.Open("sqlite", dsn())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	db := &DB{path: path, w: w, o: o, idx: map[string]*narrative.Index{}}
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
func (db *DB) Close() error { return errors.Join(db.r.Close(), db.w.Close()) }

// migrate applies the embedded migrations the database lacks.
func (db *DB) migrate(ctx context.Context) error {
	if err := migrate.Apply(ctx, db.w, migrations, "migrations", "narrative_schema", "the narrative tables in "+db.path); err != nil {
		return db.explain("open the narrative tables", err)
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
