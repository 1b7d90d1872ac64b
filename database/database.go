package database

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hearth-rpg/hearth"

	"github.com/hearth-rpg/hearth/assistant/pgconversations"
	"github.com/hearth-rpg/hearth/assistant/sqliteconversations"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/pgkeys"
	"github.com/hearth-rpg/hearth/auth/sqlitekeys"
	"github.com/hearth-rpg/hearth/chargen/pgcharacters"
	"github.com/hearth-rpg/hearth/chargen/sqlitecharacters"
	"github.com/hearth-rpg/hearth/imagegen/sqliteimages"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/library/sqlitelibrary"
	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
	"github.com/hearth-rpg/hearth/narrative/pgnarrative"
	"github.com/hearth-rpg/hearth/narrative/sqlitenarrative"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
	"github.com/hearth-rpg/hearth/store/pgstore"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

// FileName is the database file inside a data directory.
const FileName = sqlitedb.FileName

// Migrations is every store's migration set in the order they apply. The
// store's turns carry memory events into the narrative tables, so the
// narrative set is there whenever the store's is.
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

// DB is a data directory's storage, open.
type DB struct {
	h *sqlitedb.DB

	Games         *sqlitestore.DB     // sessions, branches, turns (store.Store)
	Memories      *sqlitenarrative.DB // memory events, standing, beats, stats
	Index         *sqliteindex.Index  // the lore index
	Library       *library.Library
	Conversations *sqliteconversations.Store
	Keys          *auth.Keyring
	Characters    *sqlitecharacters.DB // the character library
	Images        *sqliteimages.DB     // scene illustrations, with their games
}

type options struct {
	url               string
	synchronousNormal bool
	memories          []sqlitenarrative.Option
	index             []sqliteindex.Option
	keys              []auth.Option
}

// Option configures Open.
type Option func(*options)

// WithSynchronousNormal trades durability against power loss for speed:
// a crashed process still loses nothing committed, a power cut may lose
// the last transactions. The default is FULL.
func WithSynchronousNormal() Option { return func(o *options) { o.synchronousNormal = true } }

// WithURL chooses the backend by database.url: "" is SQLite in the data
// directory, postgres://… is PostgreSQL.
func WithURL(url string) Option { return func(o *options) { o.url = url } }

// unported names the stores that have no PostgreSQL backend yet. While
// any is left, Open refuses PostgreSQL rather than keep them in SQLite
// behind the user's back.
var unported = []string{
	"narrative memory (reputation, perception, beats, stats; memory events are ported)",
	"the document library",
}

// ported names the stores that have a PostgreSQL backend: sessions and
// turns (store/pgstore), memory events (narrative/pgnarrative), users and
// keys (auth/pgkeys), conversations (assistant/pgconversations), the
// character library (chargen/pgcharacters) and the lore index
// (retrieve/pgindex).
var ported = []string{"sessions and turns", "memory events", "users and keys", "conversations", "the character library", "the lore index"}

// PostgresMigrations is the migration set of every store ported to
// PostgreSQL, in the order they apply (as Migrations for SQLite): what
// Open will hand internal/pgdb once the stores named in unported follow.
func PostgresMigrations() []pgdb.Migrations {
	return []pgdb.Migrations{
		pgstore.Migrations,
		pgnarrative.Migrations,
		pgindex.Migrations,
		pgconversations.Migrations,
		pgkeys.Migrations,
		pgcharacters.Migrations,
	}
}

// checkURL refuses a URL Open cannot serve, without quoting it: it may
// hold a password.
func checkURL(url string) error {
	if !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") {
		return hearth.Errorf(hearth.Invalid, "database.url must be empty (SQLite in the data directory) or a postgres:// URL")
	}
	if len(unported) > 0 {
		return hearth.Errorf(hearth.Unavailable, "database.url names PostgreSQL, but these stores cannot live there yet: %s "+
			"(ported so far: %s). Leave database.url empty to keep everything in SQLite in the data directory",
			strings.Join(unported, "; "), strings.Join(ported, ", "))
	}
	return nil
}

// WithMemoryOptions configures the narrative memory (embedder, logger, …).
func WithMemoryOptions(opts ...sqlitenarrative.Option) Option {
	return func(o *options) { o.memories = append(o.memories, opts...) }
}

// WithIndexOptions configures the lore index (its embedder).
func WithIndexOptions(opts ...sqliteindex.Option) Option {
	return func(o *options) { o.index = append(o.index, opts...) }
}

// WithKeyOptions configures the keyring.
func WithKeyOptions(opts ...auth.Option) Option {
	return func(o *options) { o.keys = append(o.keys, opts...) }
}

// Open opens (creating if needed) DATA/hearth.db in dir, brings every
// store's tables up to date (adopting a round-1 database in place) and
// returns the stores over one handle.
func Open(ctx context.Context, dir string, opts ...Option) (_ *DB, err error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if o.url != "" {
		// Never a silent fallback to SQLite: the user asked for PostgreSQL.
		return nil, checkURL(o.url)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	h, err := sqlitedb.Open(ctx, sqlitedb.FileIn(dir), sqlitedb.Options{Migrations: Migrations(), SynchronousNormal: o.synchronousNormal})
	if err != nil {
		return nil, err
	}
	db := &DB{h: h, Games: sqlitestore.New(h), Conversations: sqliteconversations.New(h), Characters: sqlitecharacters.New(h),
		Images: sqliteimages.New(h)}
	defer func() {
		if err != nil {
			db.Close()
		}
	}()
	if db.Memories, err = sqlitenarrative.New(ctx, h, o.memories...); err != nil {
		return nil, err
	}
	if db.Index, err = sqliteindex.New(ctx, h, o.index...); err != nil {
		return nil, err
	}
	db.Library = library.New(sqlitelibrary.New(h), db.Index)
	keys, err := sqlitekeys.New(ctx, h)
	if err != nil {
		return nil, err
	}
	if db.Keys, err = auth.New(keys, o.keys...); err != nil {
		keys.Close()
		return nil, err
	}
	return db, nil
}

// Handle is the one handle the stores share, for what none of them does
// (a health check, a backup).
func (db *DB) Handle() *sqlitedb.DB { return db.h }

// Path returns the database file's path.
func (db *DB) Path() string { return db.h.Path() }

// Close closes the stores, then the handle.
func (db *DB) Close() error {
	var errs []error
	if db.Keys != nil {
		errs = append(errs, db.Keys.Close()) // writes pending last-used times, closes its store
	}
	if db.Index != nil {
		errs = append(errs, db.Index.Close())
	}
	errs = append(errs, db.h.Close())
	return errors.Join(errs...)
}
