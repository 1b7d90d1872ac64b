// Package pgnarrative keeps narrative memory in PostgreSQL, the
// counterpart of narrative/sqlitenarrative: memory events with their
// embeddings, faction reputation and NPC perception with their
// histories, plot-beat state and stat values. Its tables are prefixed
// narrative_ and its schema is component "narrative" in hearth_schema
// (package internal/pgdb).
//
// Every write is one transaction. A turn's memory events are written in
// the turn's transaction by store/pgstore, through InsertEvents. Writes
// that read before they write (a standing's change, a first meeting, a
// beat transition) take a transaction-scoped advisory lock on the
// playthrough, so several servers sharing the database never trigger a
// beat twice or lose a change.
//
// Recall answers from an in-process narrative.Index per playthrough, as
// SQLite does, kept current by the playthrough's event counter
// (migrations/0003): IDs from an identity column are not committed in
// order when several servers write, so each playthrough numbers its
// events (seq) under a row lock that makes them commit in order. A recall
// reads the counter (one indexed row); when it moved, it reads just the
// events numbered after the last one held, and when an event was
// forgotten by someone else, it reloads the playthrough.
package pgnarrative

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/narrative"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the narrative tables' numbered files.
var Migrations = pgdb.Migrations{Component: "narrative", FS: migrations, Dir: "migrations", What: "the narrative tables"}

// lockClass is the first key of a playthrough's advisory lock ("NARR").
const lockClass = 0x4E41_5252

// DB is narrative memory over a shared handle. It is safe for concurrent
// use.
type DB struct {
	h   *pgdb.DB
	own bool // Close closes h: Open opened it
	o   options

	// loading serialises index loads and catch-ups, so each event is
	// added to an index once.
	loading sync.Mutex
	mu      sync.RWMutex       // guards idx and each index
	idx     map[string]*loaded // by playthrough, once loaded
}

// loaded is a playthrough's recall index, the highest event number it
// holds and the playthrough's count of forgotten events when it was read.
type loaded struct {
	x         *narrative.Index
	seq       int64
	forgotten int64
}

var _ narrative.Store = (*DB)(nil)

type options struct {
	embedder   narrative.Embedder
	reputation narrative.ReputationConfig
	perception narrative.PerceptionConfig
	log        *slog.Logger
}

// Option configures New.
type Option func(*options)

// WithEmbedder embeds the summaries of events stored without an
// embedding and the text of queries that come without a vector. Without
// one, recall by text uses the lexical fallback.
func WithEmbedder(e narrative.Embedder) Option { return func(o *options) { o.embedder = e } }

// WithReputation sets the reputation scale and decay.
func WithReputation(c narrative.ReputationConfig) Option {
	return func(o *options) { o.reputation = c }
}

// WithPerception sets how first impressions are weighed and how
// perception decays.
func WithPerception(c narrative.PerceptionConfig) Option {
	return func(o *options) { o.perception = c }
}

// WithLogger logs recalls at debug level and embedding failures as
// warnings. The default discards.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// New serves narrative memory from h, whose migrations must include
// Migrations. Close does not close h.
func New(ctx context.Context, h *pgdb.DB, opts ...Option) (*DB, error) {
	var o options
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
		o.log = slog.New(slog.DiscardHandler)
	}
	return &DB{h: h, o: o, idx: map[string]*loaded{}}, nil
}

// Open connects to the database at url with only the narrative tables
// brought up to date, for tests and tools. Hearth itself opens every
// store at once (package database).
func Open(ctx context.Context, url string, opts ...Option) (*DB, error) {
	h, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: []pgdb.Migrations{Migrations}})
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

// Close closes the handle when Open opened it; over a shared handle it
// does nothing.
func (db *DB) Close() error {
	if db.own {
		return db.h.Close()
	}
	return nil
}

// tx runs f in a transaction holding the playthrough's lock, committing
// if it returns nil.
func (db *DB) tx(ctx context.Context, doing, playthrough string, f func(pgx.Tx) error) error {
	err := db.h.Tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockClass, playthrough); err != nil {
			return err
		}
		return f(tx)
	})
	return db.explain(doing, err)
}

// explain names the database in err, keeping coded errors as they are.
func (db *DB) explain(doing string, err error) error {
	if err == nil {
		return nil
	}
	if he := (*hearth.Error)(nil); errors.As(err, &he) {
		return err // already says what to do
	}
	return db.h.Explain(doing, err)
}

// querier is what reads need of the pool and of a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}
