package sqlitelibrary

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the library's numbered files, for a handle shared with
// the other stores (see package database).
var Migrations = sqlitedb.Migrations{Component: "library", FS: migrations, Dir: "migrations",
	Legacy: "library_migrations", What: "the library"}

// Store is a library.Store over SQLite. It is safe for concurrent use.
type Store struct {
	h   *sqlitedb.DB
	own bool    // Close closes h: it was opened by Open
	w   *sql.DB // the one writer
	r   *sql.DB // the readers
}

var _ library.Store = (*Store)(nil)

// New keeps the library in the shared handle h, whose migrations must
// include Migrations. Close does not close h.
func New(h *sqlitedb.DB) *Store {
	return &Store{h: h, w: h.Writer(), r: h.Reader()}
}

// Open opens (creating if needed) the SQLite file at path with only the
// library's tables brought up to date, for tests and tools; Hearth
// itself opens every store at once (package database).
func Open(ctx context.Context, path string) (*Store, error) {
	h, err := sqlitedb.Open(ctx, path, sqlitedb.Options{Migrations: []sqlitedb.Migrations{Migrations}, SynchronousNormal: true})
	if err != nil {
		return nil, fmt.Errorf("open library: %w", err)
	}
	s := New(h)
	s.own = true
	return s, nil
}

// Close closes the database when Open opened it.
func (s *Store) Close() error {
	if s.own {
		return s.h.Close()
	}
	return nil
}

// PutDocument implements library.Store.
func (s *Store) PutDocument(ctx context.Context, d library.Document, pages []library.Page, images []library.Image) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The pages and images of a document it replaces go by cascade.
	if _, err := tx.ExecContext(ctx, `DELETE FROM library_documents WHERE id = ?`, d.ID); err != nil {
		return err
	}
	tags, _ := json.Marshal(nonNil(d.Tags))
	if _, err := tx.ExecContext(ctx, `INSERT INTO library_documents (id, title, format, source, hash, tags, access, pages, chunks, created)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.Title, d.Format, d.Source, d.Hash, string(tags), int(d.Access), d.Pages, d.Chunks, d.Created.UTC().Format(time.RFC3339Nano)); err != nil {
		return err
	}
	for _, p := range pages {
		if _, err := tx.ExecContext(ctx, `INSERT INTO library_pages (document, number, label, text) VALUES (?, ?, ?, ?)`,
			d.ID, p.Number, p.Label, p.Text); err != nil {
			return fmt.Errorf("page %d: %w", p.Number, err)
		}
	}
	for _, im := range images {
		if _, err := tx.ExecContext(ctx, `INSERT INTO library_images (document, page, idx, width, height, data, media_type, description, context)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, d.ID, im.Page, im.Index, im.Width, im.Height, nonNilBytes(im.Data), library.MediaTypeOf(im), im.Description, im.Context); err != nil {
			return fmt.Errorf("image %d of page %d: %w", im.Index, im.Page, err)
		}
	}
	return tx.Commit()
}

// UpdateDocument implements library.Store.
func (s *Store) UpdateDocument(ctx context.Context, d library.Document) error {
	tags, _ := json.Marshal(nonNil(d.Tags))
	res, err := s.w.ExecContext(ctx, `UPDATE library_documents SET title = ?, tags = ?, access = ? WHERE id = ?`,
		d.Title, string(tags), int(d.Access), d.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("document %q: %w", d.ID, library.ErrNotFound)
	}
	return nil
}

// DeleteDocument implements library.Store.
func (s *Store) DeleteDocument(ctx context.Context, id string) error {
	_, err := s.w.ExecContext(ctx, `DELETE FROM library_documents WHERE id = ?`, id)
	return err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilBytes(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
