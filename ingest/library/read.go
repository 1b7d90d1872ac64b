package library

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-rpg/hearth/access"
)

// level is the stored form of a role: what CanSee compares.
func level(role access.Level) int {
	if role == 0 {
		return int(access.Player)
	}
	return int(role)
}

const docColumns = `id, title, format, source, hash, tags, access, pages, chunks, created`

func scanDoc(row interface{ Scan(...any) error }) (Document, error) {
	var d Document
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

// Document returns a document's record if role may read it.
func (l *Library) Document(ctx context.Context, id string, role access.Level) (Document, error) {
	d, err := scanDoc(l.r.QueryRowContext(ctx, `SELECT `+docColumns+` FROM library_documents WHERE id = ? AND access <= ?`, id, level(role)))
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("document %q: %w", id, ErrNotFound)
	}
	return d, err
}

// List returns the documents role may read, by title.
func (l *Library) List(ctx context.Context, role access.Level) ([]Document, error) {
	rows, err := l.r.QueryContext(ctx, `SELECT `+docColumns+` FROM library_documents WHERE access <= ? ORDER BY title, id`, level(role))
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	defer rows.Close()
	var ds []Document
	for rows.Next() {
		d, err := scanDoc(rows)
		if err != nil {
			return nil, fmt.Errorf("list documents: %w", err)
		}
		ds = append(ds, d)
	}
	return ds, rows.Err()
}

// Get returns one page's text if role may read its document.
func (l *Library) Get(ctx context.Context, docID string, page int, role access.Level) (Page, error) {
	p := Page{Number: page}
	err := l.r.QueryRowContext(ctx, `SELECT p.label, p.text FROM library_pages p
		JOIN library_documents d ON d.id = p.document
		WHERE p.document = ? AND p.number = ? AND d.access <= ?`, docID, page, level(role)).Scan(&p.Label, &p.Text)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("page %d of document %q: %w", page, docID, ErrNotFound)
	}
	if err != nil {
		return p, fmt.Errorf("page %d of document %q: %w", page, docID, err)
	}
	return p, nil
}

// Delete removes a document, its pages and images, and its chunks from
// the index. Deleting what is not there is not an error.
func (l *Library) Delete(ctx context.Context, id string) error {
	if _, err := l.w.ExecContext(ctx, `DELETE FROM library_documents WHERE id = ?`, id); err != nil {
		return fmt.Errorf("delete document %s: %w", id, err)
	}
	if err := l.ix.DeletePack(ctx, PackOf(id)); err != nil {
		return fmt.Errorf("delete document %s: remove its chunks from the index: %w", id, err)
	}
	return nil
}
