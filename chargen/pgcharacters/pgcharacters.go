// Package pgcharacters keeps the character library (chargen.Store) in
// PostgreSQL, the counterpart of chargen/sqlitecharacters. Its schema is
// component "characters" in hearth_schema (package internal/pgdb).
package pgcharacters

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/internal/pgdb"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the library's numbered files.
var Migrations = pgdb.Migrations{Component: "characters", FS: migrations, Dir: "migrations", What: "the character library"}

// DB is the character library in PostgreSQL.
type DB struct {
	h   *pgdb.DB
	own bool
	now func() time.Time
}

var _ chargen.Store = (*DB)(nil)

// New keeps the library through h, whose migrations must include
// Migrations. Close does not close h.
func New(h *pgdb.DB) *DB { return &DB{h: h, now: time.Now} }

// Open connects to the database at url with only the library's table
// brought up to date, for tests and tools.
func Open(ctx context.Context, url string) (*DB, error) {
	h, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: []pgdb.Migrations{Migrations}})
	if err != nil {
		return nil, fmt.Errorf("open the character library: %w", err)
	}
	db := New(h)
	db.own = true
	return db, nil
}

// Close closes the handle when Open opened it.
func (db *DB) Close() error {
	if db.own {
		db.own = false
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
	_, err = db.h.Pool().Exec(ctx, `INSERT INTO characters (id, owner, name, data, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)`,
		s.ID, owner, ch.Name, string(data), now.UnixMicro())
	if err != nil {
		return chargen.Saved{}, db.h.Explain("save a character", err)
	}
	return s, nil
}

// visible is the condition on the viewer's rows, its argument numbered n.
func visible(v chargen.Viewer, n int) (string, []any) {
	if v.All {
		return "true", nil
	}
	return fmt.Sprintf("owner = $%d", n), []any{v.UserID}
}

func scan(r pgx.Row) (chargen.Saved, error) {
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
	where, args := visible(v, 2)
	s, err := scan(db.h.Pool().QueryRow(ctx, `SELECT id, owner, data, created_at, updated_at FROM characters WHERE id = $1 AND `+where,
		append([]any{id}, args...)...))
	if errors.Is(err, pgx.ErrNoRows) {
		return chargen.Saved{}, notFound(id)
	}
	if err != nil {
		return chargen.Saved{}, db.h.Explain("read a character", err)
	}
	return s, nil
}

// List implements chargen.Store.
func (db *DB) List(ctx context.Context, v chargen.Viewer) ([]chargen.Saved, error) {
	where, args := visible(v, 1)
	rows, err := db.h.Pool().Query(ctx, `SELECT id, owner, data, created_at, updated_at FROM characters WHERE `+where+
		` ORDER BY created_at DESC, id`, args...)
	if err != nil {
		return nil, db.h.Explain("list characters", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (chargen.Saved, error) { return scan(r) })
	if err != nil {
		return nil, db.h.Explain("list characters", err)
	}
	if out == nil {
		out = []chargen.Saved{}
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
	where, args := visible(v, 5)
	now := db.now().UTC().Truncate(time.Microsecond)
	tag, err := db.h.Pool().Exec(ctx, `UPDATE characters SET name = $1, data = $2, updated_at = $3 WHERE id = $4 AND `+where,
		append([]any{ch.Name, string(data), now.UnixMicro(), id}, args...)...)
	if err != nil {
		return chargen.Saved{}, db.h.Explain("update a character", err)
	}
	if tag.RowsAffected() == 0 {
		return chargen.Saved{}, notFound(id)
	}
	return db.Get(ctx, v, id)
}

// Delete implements chargen.Store.
func (db *DB) Delete(ctx context.Context, v chargen.Viewer, id string) error {
	where, args := visible(v, 2)
	tag, err := db.h.Pool().Exec(ctx, `DELETE FROM characters WHERE id = $1 AND `+where, append([]any{id}, args...)...)
	if err != nil {
		return db.h.Explain("delete a character", err)
	}
	if tag.RowsAffected() == 0 {
		return notFound(id)
	}
	return nil
}
