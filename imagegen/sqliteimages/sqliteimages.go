// Package sqliteimages keeps scene illustrations (imagegen.Store) in
// SQLite, in the one database every store shares (package database), in
// a table whose rows reference the game's: deleting a game deletes its
// images. Its migrations therefore come after the game store's.
package sqliteimages

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/imagegen"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the images' numbered files, for a handle shared with the
// other stores; they must follow sqlitestore.Migrations.
var Migrations = sqlitedb.Migrations{Component: "images", FS: migrations, Dir: "migrations", What: "the scene images"}

// DB is the scene images in SQLite. It is safe for concurrent use.
type DB struct {
	h   *sqlitedb.DB
	own bool
	now func() time.Time
}

var _ imagegen.Store = (*DB)(nil)

// New keeps images in h, whose migrations must include the game store's
// and then Migrations. Close does not close h.
func New(h *sqlitedb.DB) *DB { return &DB{h: h, now: time.Now} }

// Open opens (creating if needed) the game store's tables and the
// images' in the SQLite file at path, for tests and tools; Hearth opens
// every store at once. Games returns the game store on the same handle.
func Open(ctx context.Context, path string) (*DB, error) {
	h, err := sqlitedb.Open(ctx, path, sqlitedb.Options{
		Migrations: []sqlitedb.Migrations{sqlitestore.Migrations, Migrations}, SynchronousNormal: true})
	if err != nil {
		return nil, fmt.Errorf("open the scene images: %w", err)
	}
	db := New(h)
	db.own = true
	return db, nil
}

// Games is the game store on db's handle (sessions, branches, turns).
func (db *DB) Games() *sqlitestore.DB { return sqlitestore.New(db.h) }

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
	return "img_" + hex.EncodeToString(b[:])
}

// Add implements imagegen.Store.
func (db *DB) Add(ctx context.Context, r imagegen.Record, png []byte) (imagegen.Record, error) {
	if r.Session == "" {
		return imagegen.Record{}, hearth.Errorf(hearth.Invalid, "an image belongs to a game")
	}
	if !imagegen.IsPNG(png) {
		return imagegen.Record{}, hearth.Errorf(hearth.Invalid, "only PNG images are stored")
	}
	r.ID = newID()
	r.Bytes = len(png)
	r.Created = db.now().UTC().Truncate(time.Microsecond)
	// Inserting only when the game exists makes "no such game" a NotFound
	// rather than a foreign-key failure to decode.
	res, err := db.h.Writer().ExecContext(ctx, `INSERT INTO scene_images
		(id, session_id, branch, turn, prompt, provider, model, mode, created_by, created_at, png)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)`,
		r.ID, r.Session, r.Branch, r.Turn, r.Prompt, r.Provider, r.Model, r.Mode, r.By, r.Created.UnixMicro(), png, r.Session)
	if err != nil {
		return imagegen.Record{}, db.h.Explain("save a scene image", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return imagegen.Record{}, hearth.Errorf(hearth.NotFound, "no game %q to keep an image with", r.Session)
	}
	return r, nil
}

const columns = `id, session_id, branch, turn, prompt, provider, model, mode, created_by, created_at, length(png)`

type scanner interface{ Scan(...any) error }

func scan(s scanner, extra ...any) (imagegen.Record, error) {
	var r imagegen.Record
	var created int64
	dest := append([]any{&r.ID, &r.Session, &r.Branch, &r.Turn, &r.Prompt, &r.Provider, &r.Model, &r.Mode, &r.By, &created, &r.Bytes}, extra...)
	if err := s.Scan(dest...); err != nil {
		return imagegen.Record{}, err
	}
	r.Created = time.UnixMicro(created).UTC()
	return r, nil
}

// List implements imagegen.Store.
func (db *DB) List(ctx context.Context, session string) ([]imagegen.Record, error) {
	rows, err := db.h.Reader().QueryContext(ctx, `SELECT `+columns+` FROM scene_images WHERE session_id = ? ORDER BY created_at, id`, session)
	if err != nil {
		return nil, db.h.Explain("list scene images", err)
	}
	defer rows.Close()
	out := []imagegen.Record{}
	for rows.Next() {
		r, err := scan(rows)
		if err != nil {
			return nil, db.h.Explain("list scene images", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, db.h.Explain("list scene images", err)
	}
	return out, nil
}

// Get implements imagegen.Store.
func (db *DB) Get(ctx context.Context, session, id string) (imagegen.Record, []byte, error) {
	var png []byte
	r, err := scan(db.h.Reader().QueryRowContext(ctx, `SELECT `+columns+`, png FROM scene_images WHERE session_id = ? AND id = ?`, session, id), &png)
	if errors.Is(err, sql.ErrNoRows) {
		return imagegen.Record{}, nil, hearth.Errorf(hearth.NotFound, "no image %q in this game", clip(id))
	}
	if err != nil {
		return imagegen.Record{}, nil, db.h.Explain("read a scene image", err)
	}
	return r, png, nil
}

// Counts implements imagegen.Store.
func (db *DB) Counts(ctx context.Context) ([]imagegen.Count, error) {
	rows, err := db.h.Reader().QueryContext(ctx, `SELECT session_id, count(*) FROM scene_images GROUP BY session_id ORDER BY session_id`)
	if err != nil {
		return nil, db.h.Explain("count scene images", err)
	}
	defer rows.Close()
	out := []imagegen.Count{}
	for rows.Next() {
		var c imagegen.Count
		if err := rows.Scan(&c.Session, &c.Images); err != nil {
			return nil, db.h.Explain("count scene images", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, db.h.Explain("count scene images", err)
	}
	return out, nil
}

// clip bounds an identifier quoted back in an error.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
