// Package pgstore is store.Store in PostgreSQL, the counterpart of
// store/sqlitestore, over the process's one pool (package internal/pgdb).
//
// Its schema is component "store" in hearth_schema (migrations/). Times
// are Unix nanoseconds and JSON the bytes given, as on SQLite. A turn is
// one transaction: it locks its branch's row, so concurrent appends to a
// branch, from this process or another, queue and all but one see
// ErrConflict; its memory events go to the narrative tables in the same
// transaction (narrative/pgnarrative's InsertEvents).
package pgstore

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"sync"
	"time"

	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/narrative/pgnarrative"
	"github.com/hearth-rpg/hearth/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the store's numbered files. A turn's memory events go to
// the narrative tables, so a handle that stores turns also needs
// pgnarrative.Migrations.
var Migrations = pgdb.Migrations{Component: "store", FS: migrations, Dir: "migrations", What: "the sessions and turns"}

// DB is a store.Store in PostgreSQL.
type DB struct {
	h   *pgdb.DB
	own bool // Close closes h: Open opened it

	mu       sync.Mutex
	branches map[string]store.Branch // branches never change once made
}

var _ store.Store = (*DB)(nil)

// New stores sessions through h, whose migrations must include
// Migrations and pgnarrative.Migrations. Close does not close h.
func New(h *pgdb.DB) *DB { return &DB{h: h, branches: map[string]store.Branch{}} }

// Open connects to the database at url with the store's tables (and the
// narrative tables a turn's memory events go to) brought up to date, for
// tests and tools. Hearth itself opens every store at once (package
// database).
func Open(ctx context.Context, url string) (*DB, error) {
	h, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: []pgdb.Migrations{Migrations, pgnarrative.Migrations}})
	if err != nil {
		return nil, err
	}
	db := New(h)
	db.own = true
	return db, nil
}

// Handle is the handle the store works through.
func (db *DB) Handle() *pgdb.DB { return db.h }

// Close closes the handle when Open opened it; over a shared handle it
// does nothing.
func (db *DB) Close() error {
	if db.own {
		return db.h.Close()
	}
	return nil
}

func (db *DB) explain(doing string, err error) error { return db.h.Explain(doing, err) }

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func now() int64 { return time.Now().UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func raw(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}
