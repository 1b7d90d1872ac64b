package library

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/retrieve"
)

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
	Access  access.Level `json:"access_level"` // the seed's name (§4.3.5), as every endpoint spells it
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

// Image is a picture of a document, its bytes included when asked for.
type Image struct {
	ID       int64  `json:"id"`          // set when read back
	Document string `json:"document_id"` // set when read back
	Page     int    `json:"page"`
	Index    int    `json:"index"` // nth image on its page, from 0
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	// Data is the picture (when asked for), of MediaType: image/webp or
	// image/jpeg.
	Data      []byte `json:"-"`
	MediaType string `json:"media_type"`
	// Description is a vision model's caption; empty without one.
	Description string `json:"description,omitempty"`
	// Context is the text near the image on its page.
	Context string `json:"context,omitempty"`
}

// MediaTypeOf is im's media type: a picture without one is WebP, as
// every picture was before JPEGs were kept as they are.
func MediaTypeOf(im Image) string {
	if im.MediaType == "" {
		return "image/webp"
	}
	return im.MediaType
}

// Store keeps documents, their pages and images, and ingest jobs. Every
// read that takes a role returns ErrNotFound (wrapped) for what the role
// may not read, judged by the document's level alone. A Store is safe
// for concurrent use.
type Store interface {
	// PutDocument writes a document's record, pages and images in one
	// transaction, replacing any document with the same id. A page
	// number given twice is an error and writes nothing.
	PutDocument(ctx context.Context, d Document, pages []Page, images []Image) error
	// Document returns a document's record.
	Document(ctx context.Context, id string, role access.Level) (Document, error)
	// List returns the documents role may read, by title then id.
	List(ctx context.Context, role access.Level) ([]Document, error)
	// WithHash returns every document made from the file with this
	// sha256, whatever its level, oldest first.
	WithHash(ctx context.Context, hash string) ([]Document, error)
	// Page returns one page of a document.
	Page(ctx context.Context, docID string, page int, role access.Level) (Page, error)
	// UpdateDocument sets the title, tags and level of the document with
	// d's id; ErrNotFound when there is none.
	UpdateDocument(ctx context.Context, d Document) error
	// DeleteDocument removes a document with its pages and images;
	// deleting what is not there is not an error.
	DeleteDocument(ctx context.Context, id string) error
	// SearchImages returns the images q selects that q.Role may see.
	SearchImages(ctx context.Context, q ImageQuery) ([]Image, error)
	// Image returns one image by id.
	Image(ctx context.Context, id int64, role access.Level, withData bool) (Image, error)

	JobStore
}

// Library is the document service: it keeps a document's rows in a
// Store and its chunks in the lore index, in step. It is safe for
// concurrent use.
type Library struct {
	st Store
	ix retrieve.Index
}

// New keeps documents in st and their chunks in ix.
func New(st Store, ix retrieve.Index) *Library { return &Library{st: st, ix: ix} }

// Put stores a document whole, replacing one with the same id: chunks go
// to the index as pack doc:<id> (with ids doc:<id>#n unless they have
// their own), then the record, pages and images in one transaction. On
// failure nothing of the new document is visible and a document it would
// have replaced is left as it was, except that its chunks may need
// indexing again.
func (l *Library) Put(ctx context.Context, d Document, pages []Page, images []Image, chunks []chunk.Chunk) error {
	if d.ID == "" {
		return hearth.Errorf(hearth.Invalid, "store document: it has no id")
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
	// The same id indexed before under another file name (another title):
	// its chunks carry the same ids, so they go first.
	files, err := l.ix.Hashes(ctx, d.Pack())
	if err != nil {
		return fmt.Errorf("store document %s: %w", d.ID, err)
	}
	for f := range files {
		if f != d.File() {
			if err := l.ix.DeleteFile(ctx, d.Pack(), f); err != nil {
				return fmt.Errorf("store document %s: remove its old chunks: %w", d.ID, err)
			}
		}
	}
	if err := l.ix.Upsert(ctx, d.Pack(), d.File(), d.Hash, cs); err != nil {
		return fmt.Errorf("store document %s: index its chunks: %w", d.ID, err)
	}
	if err := l.st.PutDocument(ctx, d, pages, images); err != nil {
		// Take the chunks out again so search shows no half-stored book.
		return errors.Join(fmt.Errorf("store document %s: %w", d.ID, err), l.ix.DeletePack(context.WithoutCancel(ctx), d.Pack()))
	}
	return nil
}

// Document returns a document's record if role may read it.
func (l *Library) Document(ctx context.Context, id string, role access.Level) (Document, error) {
	return l.st.Document(ctx, id, role)
}

// List returns the documents role may read, by title.
func (l *Library) List(ctx context.Context, role access.Level) ([]Document, error) {
	return l.st.List(ctx, role)
}

// WithHash returns every document made from the file with this sha256,
// whatever its level: for deciding whether an upload is new, never for
// showing.
func (l *Library) WithHash(ctx context.Context, hash string) ([]Document, error) {
	return l.st.WithHash(ctx, hash)
}

// Get returns one page's text if role may read its document.
func (l *Library) Get(ctx context.Context, docID string, page int, role access.Level) (Page, error) {
	return l.st.Page(ctx, docID, page, role)
}

// Delete removes a document, its pages and images, and its chunks from
// the index. Deleting what is not there is not an error.
func (l *Library) Delete(ctx context.Context, id string) error {
	if err := l.st.DeleteDocument(ctx, id); err != nil {
		return fmt.Errorf("delete document %s: %w", id, err)
	}
	if err := l.ix.DeletePack(ctx, PackOf(id)); err != nil {
		return fmt.Errorf("delete document %s: remove its chunks from the index: %w", id, err)
	}
	return nil
}
