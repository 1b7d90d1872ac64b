package library

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
	"github.com/hearth-rpg/hearth/retrieve"
)

//go:embed migrations/*.sql
var migrations embed.FS

// ErrNotFound is returned for a document or page that is not there, or
// that the role may not read: the two are not told apart, so a player
// cannot learn what a GM-only book holds.
var ErrNotFound = &hearth.Error{Code: hearth.NotFound, Message: "not found"}

// Document is a library record.
type Document struct {
	ID      string       `json:"id"`
	Title   string       `json:"title"`
	Format  string       `json:"format"`
	Source  string       `json:"source"` // the file name it came from
	Hash    string       `json:"hash"`   // sha256 hex of the file
	Tags    []string     `json:"tags,omitempty"`
	Access  access.Level `json:"access"`
	Pages   int          `json:"pages"`
	Chunks  int          `json:"chunks"`
	Created time.Time    `json:"created"`
}

// Pack is the lore-index pack id of the document's chunks.
func (d Document) Pack() string { return PackOf(d.ID) }

// PackOf is the lore-index pack id of document id.
func PackOf(id string) string { return "doc:" + id }

// File is the name the document's chunks carry in the index.
func (d Document) File() string {
	if d.Title != "" {
		return d.Title
	}
	return d.Source
}

// Page is one page's text.
type Page struct {
	Number int    `json:"number"`
	Label  string `json:"label,omitempty"`
	Text   string `json:"text"`
}

// Image is a picture of a document, its WebP bytes included when asked
// for.
type Image struct {
	ID       int64  `json:"id"`          // set when read back
	Document string `json:"document_id"` // set when read back
	Page     int    `json:"page"`
	Index    int    `json:"index"` // nth image on its page, from 0
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	WebP     []byte `json:"-"`
	// Description is a vision model's caption; empty without one.
	Description string `json:"description,omitempty"`
	// Context is the text near the image on its page.
	Context string `json:"context,omitempty"`
}

// Migrations are the library's numbered files, for a handle shared with
// the other stores (see package database).
var Migrations = sqlitedb.Migrations{Component: "library", FS: migrations, Dir: "migrations",
	Legacy: "library_migrations", What: "the library"}

// Library is the document store. It is safe for concurrent use.
type Library struct {
	h    *sqlitedb.DB
	own  bool    // Close closes h: it was opened by Open
	w    *sql.DB // the one writer
	r    *sql.DB // the readers
	ix   retrieve.Index
	path string
}

// New keeps documents in the shared handle h, whose migrations must
// include Migrations; ix receives the documents' chunks. Close closes
// neither.
func New(ctx context.Context, h *sqlitedb.DB, ix retrieve.Index) *Library {
	return &Library{h: h, w: h.Writer(), r: h.Reader(), ix: ix, path: h.Path()}
}

// Open opens (creating if needed) the library in the SQLite file at path
// with only its own tables brought up to date, for tests and tools;
// Hearth itself opens every store at once (package database). ix
// receives the documents' chunks and is not closed by Close.
func Open(ctx context.Context, path string, ix retrieve.Index) (*Library, error) {
	h, err := sqlitedb.Open(ctx, path, sqlitedb.Options{Migrations: []sqlitedb.Migrations{Migrations}, SynchronousNormal: true})
	if err != nil {
		return nil, fmt.Errorf("open library: %w", err)
	}
	l := New(ctx, h, ix)
	l.own = true
	return l, nil
}

// Close closes the database when Open opened it.
func (l *Library) Close() error {
	if l.own {
		return l.h.Close()
	}
	return nil
}

// Put stores a document whole, replacing one with the same id: chunks go
// to the index as pack doc:<id>, then the record, pages and images in one
// transaction. On failure nothing of the new document is visible and a
// document it would have replaced is left as it was, except that its
// chunks may need indexing again.
func (l *Library) Put(ctx context.Context, d Document, pages []Page, images []Image, chunks []chunk.Chunk) error {
	if d.ID == "" {
		return errors.New("store document: it has no id")
	}
	if d.Access == 0 {
		d.Access = access.Player
	}
	if d.Created.IsZero() {
		d.Created = time.Now().UTC()
	}
	d.Pages, d.Chunks = len(pages), len(chunks)
	cs := make([]chunk.Chunk, len(chunks))
	for i, c := range chunks {
		c.Access, c.Tags = d.Access, d.Tags
		if c.ID == "" {
			c.ID = fmt.Sprintf("%s#%d", d.Pack(), i)
		}
		cs[i] = c
	}
	if err := l.ix.Upsert(ctx, d.Pack(), d.File(), d.Hash, cs); err != nil {
		return fmt.Errorf("store document %s: index its chunks: %w", d.ID, err)
	}
	if err := l.putRows(ctx, d, pages, images); err != nil {
		// Take the chunks out again so search shows no half-stored book.
		return errors.Join(err, l.ix.DeletePack(context.WithoutCancel(ctx), d.Pack()))
	}
	return nil
}

func (l *Library) putRows(ctx context.Context, d Document, pages []Page, images []Image) error {
	tx, err := l.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store document %s: %w", d.ID, err)
	}
	defer tx.Rollback()
	// Another file indexed under this id before (an earlier title): its
	// chunks live under the same pack, so only the rows go.
	if _, err := tx.ExecContext(ctx, `DELETE FROM library_documents WHERE id = ?`, d.ID); err != nil {
		return fmt.Errorf("store document %s: %w", d.ID, err)
	}
	tags, _ := json.Marshal(nonNil(d.Tags))
	if _, err := tx.ExecContext(ctx, `INSERT INTO library_documents (id, title, format, source, hash, tags, access, pages, chunks, created)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.Title, d.Format, d.Source, d.Hash, string(tags), int(d.Access), d.Pages, d.Chunks, d.Created.UTC().Format(time.RFC3339Nano)); err != nil {
		return fmt.Errorf("store document %s: %w", d.ID, err)
	}
	for _, p := range pages {
		if _, err := tx.ExecContext(ctx, `INSERT INTO library_pages (document, number, label, text) VALUES (?, ?, ?, ?)`,
			d.ID, p.Number, p.Label, p.Text); err != nil {
			return fmt.Errorf("store document %s: page %d: %w", d.ID, p.Number, err)
		}
	}
	for _, im := range images {
		if _, err := tx.ExecContext(ctx, `INSERT INTO library_images (document, page, idx, width, height, webp, description, context)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, d.ID, im.Page, im.Index, im.Width, im.Height, nonNilBytes(im.WebP), im.Description, im.Context); err != nil {
			return fmt.Errorf("store document %s: image %d of page %d: %w", d.ID, im.Index, im.Page, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store document %s: %w", d.ID, err)
	}
	return nil
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
