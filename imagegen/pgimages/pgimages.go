// Package pgimages keeps scene illustrations (imagegen.Store) in
// PostgreSQL, the counterpart of imagegen/sqliteimages: one table whose
// rows reference the game's, so deleting a game deletes its images. Its
// migrations therefore come after store/pgstore's.
package pgimages

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/imagegen"
	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/narrative/pgnarrative"
	"github.com/hearth-rpg/hearth/store/pgstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the images' numbered files; they must follow
// pgstore.Migrations.
var Migrations = pgdb.Migrations{Component: "images", FS: migrations, Dir: "migrations", What: "the scene images"}

// DB is the scene images in PostgreSQL. It is safe for concurrent use.
type DB struct {
	h   *pgdb.DB
	own bool
	now func() time.Time
}

var _ imagegen.Store = (*DB)(nil)

// New keeps images in h, whose migrations must include the game store's
// and then Migrations. Close does not close h.
func New(h *pgdb.DB) *DB { return &DB{h: h, now: time.Now} }

// Open connects to the database at url with the game store's tables and
// the images' brought up to date, for tests and tools. Games returns the
// game store on the same handle.
func Open(ctx context.Context, url string) (*DB, error) {
	h, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: []pgdb.Migrations{pgstore.Migrations, pgnarrative.Migrations, Migrations}})
	if err != nil {
		return nil, fmt.Errorf("open the scene images: %w", err)
	}
	db := New(h)
	db.own = true
	return db, nil
}

// Games is the game store on db's handle (sessions, branches, turns).
func (db *DB) Games() *pgstore.DB { return pgstore.New(db.h) }

// Close closes the handle when Open opened it.
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
	// rather than a foreign-key failure; one deleted meanwhile is one too.
	tag, err := db.h.Pool().Exec(ctx, `INSERT INTO scene_images
		(id, session_id, branch, turn, prompt, provider, model, mode, created_by, created_at, png)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 WHERE EXISTS (SELECT 1 FROM sessions WHERE id = $2)`,
		r.ID, r.Session, r.Branch, r.Turn, r.Prompt, r.Provider, r.Model, r.Mode, r.By, r.Created.UnixMicro(), png)
	if pgdb.IsForeignKey(err) || (err == nil && tag.RowsAffected() == 0) {
		return imagegen.Record{}, hearth.Errorf(hearth.NotFound, "no game %q to keep an image with", r.Session)
	}
	if err != nil {
		return imagegen.Record{}, db.h.Explain("save a scene image", err)
	}
	return r, nil
}

const columns = `id, session_id, branch, turn, prompt, provider, model, mode, created_by, created_at, length(png)`

func scan(s pgx.Row, extra ...any) (imagegen.Record, error) {
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
	rows, err := db.h.Pool().Query(ctx, `SELECT `+columns+` FROM scene_images WHERE session_id = $1 ORDER BY created_at, id`, session)
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
	r, err := scan(db.h.Pool().QueryRow(ctx, `SELECT `+columns+`, png FROM scene_images WHERE session_id = $1 AND id = $2`, session, id), &png)
	if errors.Is(err, pgx.ErrNoRows) {
		return imagegen.Record{}, nil, hearth.Errorf(hearth.NotFound, "no image %q in this game", clip(id))
	}
	if err != nil {
		return imagegen.Record{}, nil, db.h.Explain("read a scene image", err)
	}
	return r, png, nil
}

// Counts implements imagegen.Store.
func (db *DB) Counts(ctx context.Context) ([]imagegen.Count, error) {
	rows, err := db.h.Pool().Query(ctx, `SELECT session_id, count(*) FROM scene_images GROUP BY session_id ORDER BY session_id`)
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
