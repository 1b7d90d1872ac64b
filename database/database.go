package database

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/assistant/pgconversations"
	"github.com/hearth-rpg/hearth/assistant/sqliteconversations"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/pgkeys"
	"github.com/hearth-rpg/hearth/auth/sqlitekeys"
	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/chargen/pgcharacters"
	"github.com/hearth-rpg/hearth/chargen/sqlitecharacters"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/imagegen"
	"github.com/hearth-rpg/hearth/imagegen/pgimages"
	"github.com/hearth-rpg/hearth/imagegen/sqliteimages"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/library/pglibrary"
	"github.com/hearth-rpg/hearth/ingest/library/sqlitelibrary"
	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/internal/pglive"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/narrative/pgnarrative"
	"github.com/hearth-rpg/hearth/narrative/sqlitenarrative"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/store/pgstore"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

// FileName is the database file inside a data directory.
const FileName = sqlitedb.FileName

// The backends, as Backend names them.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// Migrations is every store's SQLite migration set in the order they
// apply. The store's turns carry memory events into the narrative
// tables, so the narrative set is there whenever the store's is.
func Migrations() []sqlitedb.Migrations {
	return []sqlitedb.Migrations{
		sqlitestore.Migrations,
		sqliteimages.Migrations, // its rows reference the games'
		sqlitenarrative.Migrations,
		sqliteindex.Migrations,
		sqlitelibrary.Migrations,
		sqliteconversations.Migrations,
		sqlitekeys.Migrations,
		sqlitecharacters.Migrations,
	}
}

// PostgresMigrations is every store's PostgreSQL migration set, in the
// order they apply (as Migrations for SQLite).
func PostgresMigrations() []pgdb.Migrations {
	return []pgdb.Migrations{
		pgstore.Migrations,
		pgimages.Migrations, // its rows reference the games'
		pgnarrative.Migrations,
		pgindex.Migrations,
		pglibrary.Migrations,
		pgconversations.Migrations,
		pgkeys.Migrations,
		pgcharacters.Migrations,
		pglive.Migrations, // several servers' leases and messages
	}
}

// DB is a data directory's storage, open: every store over one handle,
// a SQLite file or a PostgreSQL pool, whichever database.url chose.
type DB struct {
	backend string
	sqlite  *sqlitedb.DB // SQLite only
	pg      *pgdb.DB     // PostgreSQL only
	closers []func() error

	Games         store.Store     // sessions, branches, turns
	Memories      narrative.Store // memory events, standing, beats, stats
	Index         retrieve.Index  // the lore index
	Library       *library.Library
	Conversations assistant.Conversations
	Keys          *auth.Keyring
	Characters    chargen.Store  // the character library
	Images        imagegen.Store // scene illustrations, with their games
}

type options struct {
	url               string
	synchronousNormal bool
	memoryEmbedder    narrative.Embedder
	indexEmbedder     embedding.Embedder
	keys              []auth.Option
	log               *slog.Logger
}

// Option configures Open.
type Option func(*options)

// WithSynchronousNormal trades durability against power loss for speed
// on SQLite: a crashed process still loses nothing committed, a power
// cut may lose the last transactions. The default is FULL. PostgreSQL
// keeps its server's settings.
func WithSynchronousNormal() Option { return func(o *options) { o.synchronousNormal = true } }

// WithURL chooses the backend by database.url: "" is SQLite in the data
// directory, postgres://… is PostgreSQL.
func WithURL(url string) Option { return func(o *options) { o.url = url } }

// WithMemoryEmbedder embeds memory events and recall queries.
func WithMemoryEmbedder(e narrative.Embedder) Option {
	return func(o *options) { o.memoryEmbedder = e }
}

// WithIndexEmbedder gives the lore index its embedder.
func WithIndexEmbedder(e embedding.Embedder) Option {
	return func(o *options) { o.indexEmbedder = e }
}

// WithKeyOptions configures the keyring.
func WithKeyOptions(opts ...auth.Option) Option {
	return func(o *options) { o.keys = append(o.keys, opts...) }
}

// WithLogger reports migrations and the stores' start-up; nil discards.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// checkURL refuses a URL Open cannot serve, without quoting it: it may
// hold a password.
func checkURL(url string) error {
	if !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") {
		return hearth.Errorf(hearth.Invalid, "database.url must be empty (SQLite in the data directory) or a postgres:// URL")
	}
	return nil
}

// Open opens every store: in DATA/hearth.db in dir (creating it if
// needed, adopting a round-1 database in place) when no URL is given,
// or in the PostgreSQL database WithURL names, whose tables it brings up
// to date. dir is not touched on PostgreSQL.
func Open(ctx context.Context, dir string, opts ...Option) (_ *DB, err error) {
	o := options{log: slog.New(slog.DiscardHandler)}
	for _, f := range opts {
		f(&o)
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	if o.url != "" {
		// Never a silent fallback to SQLite: the user asked for PostgreSQL.
		if err := checkURL(o.url); err != nil {
			return nil, err
		}
		return openPostgres(ctx, o)
	}
	return openSQLite(ctx, dir, o)
}

func openSQLite(ctx context.Context, dir string, o options) (_ *DB, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	h, err := sqlitedb.Open(ctx, sqlitedb.FileIn(dir), sqlitedb.Options{Migrations: Migrations(), SynchronousNormal: o.synchronousNormal})
	if err != nil {
		return nil, err
	}
	games, convs := sqlitestore.New(h), sqliteconversations.New(h)
	db := &DB{backend: SQLite, sqlite: h, Games: games, Conversations: convs,
		Characters: sqlitecharacters.New(h), Images: sqliteimages.New(h)}
	// The stores' prepared statements are closed before the handle.
	db.closers = append(db.closers, h.Close, games.Close, convs.Close)
	defer func() {
		if err != nil {
			db.Close()
		}
	}()
	var mopts []sqlitenarrative.Option
	if o.memoryEmbedder != nil {
		mopts = append(mopts, sqlitenarrative.WithEmbedder(o.memoryEmbedder))
	}
	if db.Memories, err = sqlitenarrative.New(ctx, h, append(mopts, sqlitenarrative.WithLogger(o.log))...); err != nil {
		return nil, err
	}
	iopts := []sqliteindex.Option{sqliteindex.WithLogger(o.log)}
	if o.indexEmbedder != nil {
		iopts = append(iopts, sqliteindex.WithEmbedder(o.indexEmbedder))
	}
	ix, err := sqliteindex.New(ctx, h, iopts...)
	if err != nil {
		return nil, err
	}
	db.Index = ix
	db.closers = append(db.closers, ix.Close)
	db.Library = library.New(sqlitelibrary.New(h), ix)
	keys, err := sqlitekeys.New(ctx, h)
	if err != nil {
		return nil, err
	}
	if db.Keys, err = auth.New(keys, o.keys...); err != nil {
		keys.Close()
		return nil, err
	}
	db.closers = append(db.closers, db.Keys.Close) // writes pending last-used times, closes its store
	return db, nil
}

func openPostgres(ctx context.Context, o options) (_ *DB, err error) {
	h, err := pgdb.Open(ctx, o.url, pgdb.Options{Migrations: PostgresMigrations(), Log: o.log})
	if err != nil {
		return nil, err
	}
	db := &DB{backend: Postgres, pg: h, Games: pgstore.New(h), Conversations: pgconversations.New(h),
		Characters: pgcharacters.New(h), Images: pgimages.New(h)}
	db.closers = append(db.closers, h.Close)
	defer func() {
		if err != nil {
			db.Close()
		}
	}()
	stop := watch(h, o.log, watchEvery)
	db.closers = append(db.closers, func() error { stop(); return nil })
	var mopts []pgnarrative.Option
	if o.memoryEmbedder != nil {
		mopts = append(mopts, pgnarrative.WithEmbedder(o.memoryEmbedder))
	}
	if db.Memories, err = pgnarrative.New(ctx, h, append(mopts, pgnarrative.WithLogger(o.log))...); err != nil {
		return nil, err
	}
	iopts := []pgindex.Option{pgindex.WithLogger(o.log)}
	if o.indexEmbedder != nil {
		iopts = append(iopts, pgindex.WithEmbedder(o.indexEmbedder))
	}
	ix, err := pgindex.New(ctx, h, iopts...)
	if err != nil {
		return nil, err
	}
	db.Index = ix
	db.closers = append(db.closers, ix.Close)
	db.Library = library.New(pglibrary.New(h), ix)
	if db.Keys, err = auth.New(pgkeys.New(h), o.keys...); err != nil {
		return nil, err
	}
	db.closers = append(db.closers, db.Keys.Close)
	return db, nil
}

// Backend names the database the stores live in: SQLite or Postgres.
func (db *DB) Backend() string { return db.backend }

// Where says where the data is, for logs and health: the SQLite file's
// path, or PostgreSQL's host:port/database (never a password).
func (db *DB) Where() string {
	if db.pg != nil {
		return db.pg.Where()
	}
	return db.sqlite.Path()
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if db.pg != nil {
		return db.pg.Explain("ping", db.pg.Pool().Ping(ctx))
	}
	return db.sqlite.Reader().PingContext(ctx)
}

// PoolStats is the PostgreSQL connection pool's state, for health and
// metrics: connections total, idle and in use, the pool's ceiling, and
// how many acquisitions there were and how long they waited in total.
// Nil on SQLite.
func (db *DB) PoolStats() map[string]float64 {
	if db.pg == nil {
		return nil
	}
	s := db.pg.Pool().Stat()
	return map[string]float64{
		"total_conns":              float64(s.TotalConns()),
		"idle_conns":               float64(s.IdleConns()),
		"acquired_conns":           float64(s.AcquiredConns()),
		"max_conns":                float64(s.MaxConns()),
		"acquire_count":            float64(s.AcquireCount()),
		"acquire_duration_seconds": s.AcquireDuration().Seconds(),
		"empty_acquire_count":      float64(s.EmptyAcquireCount()),
		"canceled_acquire_count":   float64(s.CanceledAcquireCount()),
	}
}

// Postgres is PostgreSQL's handle, for what only it offers (several
// servers on one database); nil on SQLite.
func (db *DB) Postgres() *pgdb.DB { return db.pg }

// Handle is SQLite's one handle, for what only SQLite offers (the file's
// own tools, tests); nil on PostgreSQL.
func (db *DB) Handle() *sqlitedb.DB { return db.sqlite }

// Path returns the SQLite file's path; "" on PostgreSQL, which keeps no
// file in the data directory.
func (db *DB) Path() string {
	if db.sqlite == nil {
		return ""
	}
	return db.sqlite.Path()
}

// Close closes the stores, then the handle.
func (db *DB) Close() error {
	var errs []error
	for i := len(db.closers) - 1; i >= 0; i-- {
		errs = append(errs, db.closers[i]())
	}
	db.closers = nil
	return errors.Join(errs...)
}
