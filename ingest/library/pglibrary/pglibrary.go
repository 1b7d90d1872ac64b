// Package pglibrary is the library.Store over PostgreSQL, the counterpart
// of ingest/library/sqlitelibrary: tables prefixed library_ (schema in
// numbered migrations, component "library" in hearth_schema). Pages and
// images have no access column and are read through a join with their
// document. Images are searched with a generated tsvector over their
// descriptions (weighted most) and the text around them; user text is
// reduced to words of letters and digits and never reaches tsquery's
// syntax. Ingest jobs are rows of library_jobs.
package pglibrary

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/internal/pgdb"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the library's numbered files.
var Migrations = pgdb.Migrations{Component: "library", FS: migrations, Dir: "migrations", What: "the library"}

// lockClass is the first key of a document's advisory lock ("LIBR").
const lockClass = 0x4C49_4252

// Store is a library.Store over PostgreSQL. It is safe for concurrent
// use.
type Store struct {
	h   *pgdb.DB
	own bool // Close closes h: Open opened it
}

var _ library.Store = (*Store)(nil)

// New keeps the library in the shared handle h, whose migrations must
// include Migrations. Close does not close h.
func New(h *pgdb.DB) *Store { return &Store{h: h} }

// Open connects to the database at url with only the library's tables
// brought up to date, for tests and tools.
func Open(ctx context.Context, url string) (*Store, error) {
	h, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: []pgdb.Migrations{Migrations}})
	if err != nil {
		return nil, fmt.Errorf("open library: %w", err)
	}
	return &Store{h: h, own: true}, nil
}

// Close closes the handle when Open opened it.
func (s *Store) Close() error {
	if s.own {
		return s.h.Close()
	}
	return nil
}

// level is the stored form of a role: what CanSee compares.
func level(role access.Level) int {
	if role == 0 {
		return int(access.Player)
	}
	return int(role)
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

// PutDocument implements library.Store.
func (s *Store) PutDocument(ctx context.Context, d library.Document, pages []library.Page, images []library.Image) error {
	err := s.h.Tx(ctx, func(tx pgx.Tx) error {
		// Two puts of one id at once: the second waits, then replaces.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockClass, d.ID); err != nil {
			return err
		}
		// The pages and images of a document it replaces go by cascade.
		if _, err := tx.Exec(ctx, `DELETE FROM library_documents WHERE id = $1`, d.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO library_documents (id, title, format, source, hash, tags, access, pages, chunks, created)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			d.ID, d.Title, d.Format, d.Source, d.Hash, nonNil(d.Tags), int(d.Access), d.Pages, d.Chunks, d.Created.UnixNano()); err != nil {
			return err
		}
		for _, p := range pages {
			if _, err := tx.Exec(ctx, `INSERT INTO library_pages (document, number, label, text) VALUES ($1, $2, $3, $4)`,
				d.ID, p.Number, p.Label, p.Text); err != nil {
				return fmt.Errorf("page %d: %w", p.Number, err)
			}
		}
		for _, im := range images {
			if _, err := tx.Exec(ctx, `INSERT INTO library_images (document, page, idx, width, height, data, media_type, description, context)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, d.ID, im.Page, im.Index, im.Width, im.Height, nonNilBytes(im.Data), library.MediaTypeOf(im),
				im.Description, im.Context); err != nil {
				return fmt.Errorf("image %d of page %d: %w", im.Index, im.Page, err)
			}
		}
		return nil
	})
	return s.h.Explain(fmt.Sprintf("store document %q", d.ID), err)
}

// UpdateDocument implements library.Store.
func (s *Store) UpdateDocument(ctx context.Context, d library.Document) error {
	tag, err := s.h.Pool().Exec(ctx, `UPDATE library_documents SET title = $1, tags = $2, access = $3 WHERE id = $4`,
		d.Title, nonNil(d.Tags), int(d.Access), d.ID)
	if err != nil {
		return s.h.Explain(fmt.Sprintf("update document %q", d.ID), err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("document %q: %w", d.ID, library.ErrNotFound)
	}
	return nil
}

// DeleteDocument implements library.Store.
func (s *Store) DeleteDocument(ctx context.Context, id string) error {
	_, err := s.h.Pool().Exec(ctx, `DELETE FROM library_documents WHERE id = $1`, id)
	return s.h.Explain(fmt.Sprintf("delete document %q", id), err)
}

const docColumns = `id, title, format, source, hash, tags, access, pages, chunks, created`

func scanDoc(row pgx.Row) (library.Document, error) {
	var d library.Document
	var lv int
	var created int64
	if err := row.Scan(&d.ID, &d.Title, &d.Format, &d.Source, &d.Hash, &d.Tags, &lv, &d.Pages, &d.Chunks, &created); err != nil {
		return d, err
	}
	d.Access = access.Level(lv)
	if len(d.Tags) == 0 {
		d.Tags = nil
	}
	d.Created = time.Unix(0, created).UTC()
	return d, nil
}

// Document implements library.Store.
func (s *Store) Document(ctx context.Context, id string, role access.Level) (library.Document, error) {
	d, err := scanDoc(s.h.Pool().QueryRow(ctx, `SELECT `+docColumns+` FROM library_documents WHERE id = $1 AND access <= $2`, id, level(role)))
	if errors.Is(err, pgx.ErrNoRows) {
		return d, fmt.Errorf("document %q: %w", id, library.ErrNotFound)
	}
	return d, s.h.Explain(fmt.Sprintf("document %q", id), err)
}

// List implements library.Store.
func (s *Store) List(ctx context.Context, role access.Level) ([]library.Document, error) {
	return s.documents(ctx, "list documents", `SELECT `+docColumns+` FROM library_documents WHERE access <= $1 ORDER BY title COLLATE "C", id COLLATE "C"`, level(role))
}

// WithHash implements library.Store.
func (s *Store) WithHash(ctx context.Context, hash string) ([]library.Document, error) {
	return s.documents(ctx, "documents of file "+hash, `SELECT `+docColumns+` FROM library_documents WHERE hash = $1 ORDER BY created, id COLLATE "C"`, hash)
}

func (s *Store) documents(ctx context.Context, doing, query string, args ...any) ([]library.Document, error) {
	rows, err := s.h.Pool().Query(ctx, query, args...)
	if err != nil {
		return nil, s.h.Explain(doing, err)
	}
	defer rows.Close()
	var ds []library.Document
	for rows.Next() {
		d, err := scanDoc(rows)
		if err != nil {
			return nil, s.h.Explain(doing, err)
		}
		ds = append(ds, d)
	}
	return ds, s.h.Explain(doing, rows.Err())
}

// Page implements library.Store.
func (s *Store) Page(ctx context.Context, docID string, page int, role access.Level) (library.Page, error) {
	p := library.Page{Number: page}
	err := s.h.Pool().QueryRow(ctx, `SELECT p.label, p.text FROM library_pages p
		JOIN library_documents d ON d.id = p.document
		WHERE p.document = $1 AND p.number = $2 AND d.access <= $3`, docID, page, level(role)).Scan(&p.Label, &p.Text)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, fmt.Errorf("page %d of document %q: %w", page, docID, library.ErrNotFound)
	}
	return p, s.h.Explain(fmt.Sprintf("page %d of document %q", page, docID), err)
}

const (
	maxSearchTerms = 16
	imageColumns   = `i.id, i.document, i.page, i.idx, i.width, i.height, i.media_type, i.description, i.context`
)

func scanImage(row pgx.Row, withData bool) (library.Image, error) {
	var im library.Image
	dest := []any{&im.ID, &im.Document, &im.Page, &im.Index, &im.Width, &im.Height, &im.MediaType, &im.Description, &im.Context}
	if withData {
		dest = append(dest, &im.Data)
	}
	err := row.Scan(dest...)
	return im, err
}

// SearchImages implements library.Store.
func (s *Store) SearchImages(ctx context.Context, q library.ImageQuery) ([]library.Image, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = library.DefaultImageLimit
	}
	limit = min(limit, library.MaxImageLimit)
	cols := imageColumns
	if q.WithData {
		cols += ", i.data"
	}
	const where = `d.access <= $1 AND ($2 = '' OR i.document = $2) AND ($3 = 0 OR i.page = $3)`
	args := []any{level(q.Role), q.Document, q.Page, limit}
	var query string
	if strings.TrimSpace(q.Text) == "" {
		query = `SELECT ` + cols + ` FROM library_images i JOIN library_documents d ON d.id = i.document
			WHERE ` + where + ` ORDER BY i.document COLLATE "C", i.page, i.idx LIMIT $4`
	} else {
		terms := words(q.Text)
		if len(terms) == 0 {
			return nil, nil // no word to look for: nothing matches
		}
		// Each term is letters and digits only, so joining them with |
		// is tsquery syntax no user text can change.
		query = `SELECT ` + cols + ` FROM library_images i JOIN library_documents d ON d.id = i.document,
			to_tsquery('english', $5) tq
			WHERE i.search @@ tq AND ` + where + `
			ORDER BY ts_rank(i.search, tq) DESC, i.id LIMIT $4`
		args = append(args, strings.Join(terms, " | "))
	}
	rows, err := s.h.Pool().Query(ctx, query, args...)
	if err != nil {
		return nil, s.h.Explain("search images", err)
	}
	defer rows.Close()
	var out []library.Image
	for rows.Next() {
		im, err := scanImage(rows, q.WithData)
		if err != nil {
			return nil, s.h.Explain("search images", err)
		}
		out = append(out, im)
	}
	return out, s.h.Explain("search images", rows.Err())
}

// words are text's distinct lower-case words of letters and digits, at
// most maxSearchTerms. PostgreSQL drops the stop words itself.
func words(text string) []string {
	terms := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	seen := map[string]bool{}
	var out []string
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
		if len(out) == maxSearchTerms {
			break
		}
	}
	return out
}

// Image implements library.Store.
func (s *Store) Image(ctx context.Context, id int64, role access.Level, withData bool) (library.Image, error) {
	cols := imageColumns
	if withData {
		cols += ", i.data"
	}
	im, err := scanImage(s.h.Pool().QueryRow(ctx, `SELECT `+cols+` FROM library_images i JOIN library_documents d ON d.id = i.document
		WHERE i.id = $1 AND d.access <= $2`, id, level(role)), withData)
	if errors.Is(err, pgx.ErrNoRows) {
		return library.Image{}, fmt.Errorf("image %d: %w", id, library.ErrNotFound)
	}
	if err != nil {
		return library.Image{}, s.h.Explain(fmt.Sprintf("image %d", id), err)
	}
	return im, nil
}
