// Package sqlitecharacters keeps the character library (chargen.Store) in
// SQLite, in the one database every store shares (package database).
package sqlitecharacters

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the library's numbered files, for a handle shared with
// the other stores.
var Migrations = sqlitedb.Migrations{Component: "characters", FS: migrations, Dir: "migrations", What: "the character library"}

// DB is the character library in SQLite.
type DB struct {
	h   *sqlitedb.DB
	own bool
	now func() time.Time
}

var _ chargen.Store = (*DB)(nil)

// New keeps the library in h, whose migrations must include Migrations.
// Close does not close h.
func New(h *sqlitedb.DB) *DB { return &DB{h: h, now: time.Now} }

// Open opens (creating if needed) only the library's tables in the SQLite
// file at path, for tests and tools; Hearth opens every store at once.
func Open(ctx context.Context, path string) (*DB, error) {
	h, err := sqlitedb.Open(ctx, path, sqlitedb.Options{Migrations: []sqlitedb.Migrations{Migrations}, SynchronousNormal: true})
	if err != nil {
		return nil, fmt.Errorf("open the character library: %w", err)
	}
	db := New(h)
	db.own = true
	return db, nil
}

// Close closes the database when Open opened it.
func (db *DB) Close() error {
	if db.own {
		return db.h.Close()
	}
	return nil
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "ch_" + hex.EncodeToString(b[:])
}

func notFound(id string) error {
	return hearth.Errorf(hearth.NotFound, "no character %q in your library", id)
}

// Create implements chargen.Store.
func (db *DB) Create(ctx context.Context, owner string, ch *chargen.Character) (chargen.Saved, error) {
	if owner == "" {
		return chargen.Saved{}, hearth.Errorf(hearth.Invalid, "a saved character needs an owner")
	}
	if ch == nil {
		return chargen.Saved{}, hearth.Errorf(hearth.Invalid, "no character to save")
	}
	data, err := json.Marshal(ch)
	if err != nil {
		return chargen.Saved{}, fmt.Errorf("encode character: %w", err)
	}
	now := db.now().UTC().Truncate(time.Microsecond)
	s := chargen.Saved{ID: newID(), Owner: owner, Character: ch, Created: now, Updated: now}
	_, err = db.h.Writer().ExecContext(ctx, `INSERT INTO characters (id, owner, name, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
		s.ID, owner, ch.Name, string(data), now.UnixMicro(), now.UnixMicro())
	if err != nil {
		return chargen.Saved{}, db.h.Explain("save a character", err)
	}
	return s, nil
}

// visible is the WHERE clause and arguments for the viewer's rows.
func visible(v chargen.Viewer) (string, []any) {
	if v.All {
		return "1=1", nil
	}
	return "owner = ?", []any{v.UserID}
}

type scanner interface{ Scan(...any) error }

func scan(r scanner) (chargen.Saved, error) {
	var s chargen.Saved
	var data string
	var created, updated int64
	if err := r.Scan(&s.ID, &s.Owner, &data, &created, &updated); err != nil {
		return chargen.Saved{}, err
	}
	s.Character = new(chargen.Character)
	if err := json.Unmarshal([]byte(data), s.Character); err != nil {
		return chargen.Saved{}, fmt.Errorf("decode character %s: %w", s.ID, err)
	}
	s.Created, s.Updated = time.UnixMicro(created).UTC(), time.UnixMicro(updated).UTC()
	return s, nil
}

// Get implements chargen.Store.
func (db *DB) Get(ctx context.Context, v chargen.Viewer, id string) (chargen.Saved, error) {
	where, args := visible(v)
	row := db.h.Reader().QueryRowContext(ctx, `SELECT id, owner, data, created_at, updated_at FROM characters WHERE id = ? AND `+where,
		append([]any{id}, args...)...)
	s, err := scan(row)
	if errors.Is(err, sql.ErrNoRows) {
		return chargen.Saved{}, notFound(id)
	}
	if err != nil {
		return chargen.Saved{}, db.h.Explain("read a character", err)
	}
	return s, nil
}

// List implements chargen.Store.
func (db *DB) List(ctx context.Context, v chargen.Viewer) ([]chargen.Saved, error) {
	where, args := visible(v)
	rows, err := db.h.Reader().QueryContext(ctx, `SELECT id, owner, data, created_at, updated_at FROM characters WHERE `+where+
		` ORDER BY created_at DESC, id`, args...)
	if err != nil {
		return nil, db.h.Explain("list characters", err)
	}
	defer rows.Close()
	out := []chargen.Saved{}
	for rows.Next() {
		s, err := scan(rows)
		if err != nil {
			return nil, db.h.Explain("list characters", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, db.h.Explain("list characters", err)
	}
	return out, nil
}

// Update implements chargen.Store.
func (db *DB) Update(ctx context.Context, v chargen.Viewer, id string, ch *chargen.Character) (chargen.Saved, error) {
	if ch == nil {
		return chargen.Saved{}, hearth.Errorf(hearth.Invalid, "no character to save")
	}
	data, err := json.Marshal(ch)
	if err != nil {
		return chargen.Saved{}, fmt.Errorf("encode character: %w", err)
	}
	where, args := visible(v)
	now := db.now().UTC().Truncate(time.Microsecond)
	res, err := db.h.Writer().ExecContext(ctx, `UPDATE characters SET name = ?, data = ?, updated_at = ? WHERE id = ? AND `+where,
		append([]any{ch.Name, string(data), now.UnixMicro(), id}, args...)...)
	if err != nil {
		return chargen.Saved{}, db.h.Explain("update a character", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return chargen.Saved{}, notFound(id)
	}
	return db.Get(ctx, v, id)
}

// Delete implements chargen.Store.
func (db *DB) Delete(ctx context.Context, v chargen.Viewer, id string) error {
	where, args := visible(v)
	res, err := db.h.Writer().ExecContext(ctx, `DELETE FROM characters WHERE id = ? AND `+where, append([]any{id}, args...)...)
	if err != nil {
		return db.h.Explain("delete a character", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound(id)
	}
	return nil
}
