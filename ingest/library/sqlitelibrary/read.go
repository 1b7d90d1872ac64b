package sqlitelibrary

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest/library"
)

// level is the stored form of a role: what CanSee compares.
func level(role access.Level) int {
	if role == 0 {
		return int(access.Player)
	}
	return int(role)
}

const docColumns = `id, title, format, source, hash, tags, access, pages, chunks, created`

func scanDoc(row interface{ Scan(...any) error }) (library.Document, error) {
	var d library.Document
	var tags, created string
	var lv int
	if err := row.Scan(&d.ID, &d.Title, &d.Format, &d.Source, &d.Hash, &tags, &lv, &d.Pages, &d.Chunks, &created); err != nil {
		return d, err
	}
	d.Access = access.Level(lv)
	if err := json.Unmarshal([]byte(tags), &d.Tags); err != nil {
		return d, fmt.Errorf("document %s: tags: %w", d.ID, err)
	}
	if len(d.Tags) == 0 {
		d.Tags = nil
	}
	d.Created, _ = time.Parse(time.RFC3339Nano, created)
	return d, nil
}

// Document implements library.Store.
func (s *Store) Document(ctx context.Context, id string, role access.Level) (library.Document, error) {
	d, err := scanDoc(s.r.QueryRowContext(ctx, `SELECT `+docColumns+` FROM library_documents WHERE id = ? AND access <= ?`, id, level(role)))
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("document %q: %w", id, library.ErrNotFound)
	}
	return d, err
}

// List implements library.Store.
func (s *Store) List(ctx context.Context, role access.Level) ([]library.Document, error) {
	return s.documents(ctx, "list documents", `SELECT `+docColumns+` FROM library_documents WHERE access <= ? ORDER BY title, id`, level(role))
}

// WithHash implements library.Store.
func (s *Store) WithHash(ctx context.Context, hash string) ([]library.Document, error) {
	return s.documents(ctx, "documents of file "+hash, `SELECT `+docColumns+` FROM library_documents WHERE hash = ? ORDER BY created, id`, hash)
}

func (s *Store) documents(ctx context.Context, doing, query string, args ...any) ([]library.Document, error) {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", doing, err)
	}
	defer rows.Close()
	var ds []library.Document
	for rows.Next() {
		d, err := scanDoc(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", doing, err)
		}
		ds = append(ds, d)
	}
	return ds, rows.Err()
}

// Page implements library.Store.
func (s *Store) Page(ctx context.Context, docID string, page int, role access.Level) (library.Page, error) {
	p := library.Page{Number: page}
	err := s.r.QueryRowContext(ctx, `SELECT p.label, p.text FROM library_pages p
		JOIN library_documents d ON d.id = p.document
		WHERE p.document = ? AND p.number = ? AND d.access <= ?`, docID, page, level(role)).Scan(&p.Label, &p.Text)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("page %d of document %q: %w", page, docID, library.ErrNotFound)
	}
	if err != nil {
		return p, fmt.Errorf("page %d of document %q: %w", page, docID, err)
	}
	return p, nil
}
