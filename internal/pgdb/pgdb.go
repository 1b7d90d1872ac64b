// Package pgdb is the one handle on a PostgreSQL database, the
// counterpart of internal/sqlitedb: one connection pool per process, and
// one migration runner that brings every store's tables up to date in one
// ordered sequence, recorded in one version table, hearth_schema.
//
// Each store owns its numbered migration files (NNNN_what.sql) and hands
// them over as a Migrations set; Open applies the sets in the order given,
// each file in its own transaction together with its version row. Several
// servers starting at once against one database migrate once: the runner
// holds an advisory lock, scoped to the current schema, while it reads
// versions and applies files. A database that records a version newer
// than this Hearth knows is refused.
package pgdb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hearth-rpg/hearth"
)

// ErrNewer is wrapped by the error Open returns for a database written by
// a newer Hearth.
var ErrNewer = errors.New("written by a newer Hearth")

// lockClass is the first key of the migration lock; the second is the
// hash of the schema migrated, so schemas migrate independently.
const lockClass = 0x4845_4152 // "HEAR"

// Migrations is one store's numbered SQL files (Dir/NNNN_what.sql in FS),
// versioned under Component in hearth_schema.
type Migrations struct {
	Component string // "store", "keys", …
	FS        fs.FS
	Dir       string
	// What names the tables in errors ("the sessions and turns").
	What string
}

// Options configures Open.
type Options struct {
	// Migrations are applied in this order.
	Migrations []Migrations
	// Log reports migrations applied; nil discards.
	Log *slog.Logger
}

// DB is the handle on one PostgreSQL database. It is safe for concurrent
// use.
type DB struct {
	pool  *pgxpool.Pool
	where string // host:port/database, for errors: never the password
}

// Open connects to the database at url (postgres://…; pgxpool's pool_*
// parameters size the pool) and applies the migrations it lacks.
func Open(ctx context.Context, url string, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's parse errors may quote the URL, password included.
		return nil, errors.New("open PostgreSQL: database.url is not a valid postgres:// URL")
	}
	db := &DB{where: fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, db.Explain("open PostgreSQL", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, unreachable(cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database, err)
	}
	db.pool = pool
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := migrate(ctx, pool, opts.Migrations, log); err != nil {
		pool.Close()
		return nil, db.Explain("open the database", err)
	}
	return db, nil
}

// unreachable says why connecting failed and what to check: a server that
// answered (a wrong password, no such database) or none at all. pgx's
// connect errors name host, user and database, never the password.
func unreachable(host string, port uint16, database string, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return hearth.Errorf(hearth.Unavailable, "PostgreSQL at %s:%d refused database %q (%s): check the user, password and database name in database.url",
			host, port, database, pe.Message)
	}
	cause := err
	for u := errors.Unwrap(cause); u != nil; u = errors.Unwrap(cause) {
		cause = u // the dial error, without pgx's restatement of the config
	}
	return hearth.Errorf(hearth.Unavailable, "cannot reach PostgreSQL at %s:%d (%v): is it running? check database.url", host, port, cause)
}

// Pool is the process's connection pool.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Where names the database as host:port/name, without credentials.
func (db *DB) Where() string { return db.where }

// Close closes the pool, waiting for connections in use to come back.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Explain wraps err from doing something with the database, naming the
// database (never its password).
func (db *DB) Explain(doing string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s (PostgreSQL at %s): %w", doing, db.where, err)
}

// Tx runs f in a transaction, committing when it returns nil and rolling
// back otherwise.
func (db *DB) Tx(ctx context.Context, f func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, db.pool, f)
}

// SQLSTATE codes the stores test for.
const (
	codeUnique     = "23505"
	codeForeignKey = "23503"
)

// IsUnique reports whether err is a unique or primary key violation.
func IsUnique(err error) bool { return code(err) == codeUnique }

// IsForeignKey reports whether err is a foreign key violation.
func IsForeignKey(err error) bool { return code(err) == codeForeignKey }

func code(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

type file struct {
	version int
	name    string
}

// migrate takes the schema's migration lock on one connection, refuses a
// newer database, then applies each set's missing files in order.
func migrate(ctx context.Context, pool *pgxpool.Pool, sets []Migrations, log *slog.Logger) error {
	files := make([][]file, len(sets))
	for i, m := range sets {
		fs, err := list(m)
		if err != nil {
			return err
		}
		files[i] = fs
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	// A session lock: held across the per-file transactions below, and
	// released by the server should this process die holding it.
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext(current_schema()))`, lockClass); err != nil {
		return fmt.Errorf("take the migration lock: %w", err)
	}
	defer func() {
		// On a cancelled ctx the unlock cannot run: drop the connection,
		// which releases the lock with the session.
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, hashtext(current_schema()))`, lockClass); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS hearth_schema (
		component  TEXT NOT NULL,
		version    INTEGER NOT NULL,
		applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
		PRIMARY KEY (component, version))`); err != nil {
		return fmt.Errorf("prepare the schema table: %w", err)
	}
	haves := make([]int, len(sets))
	for i, m := range sets {
		if err := conn.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM hearth_schema WHERE component = $1`, m.Component).Scan(&haves[i]); err != nil {
			return fmt.Errorf("read the schema version of %s: %w", m.what(), err)
		}
		latest := 0
		if fs := files[i]; len(fs) > 0 {
			latest = fs[len(fs)-1].version
		}
		if haves[i] > latest {
			return fmt.Errorf("%s is %w (schema %d; this one knows up to %d): upgrade Hearth, or use another database", m.what(), ErrNewer, haves[i], latest)
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
			err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, string(body)); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, `INSERT INTO hearth_schema (component, version) VALUES ($1, $2)`, m.Component, f.version)
				return err
			})
			if err != nil {
				return fmt.Errorf("migrate %s to %s: %w", m.what(), path.Base(f.name), err)
			}
			log.Info("database: migrated", "component", m.Component, "file", path.Base(f.name))
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

func (m Migrations) what() string {
	if m.What != "" {
		return m.What
	}
	return "the " + m.Component + " tables"
}
