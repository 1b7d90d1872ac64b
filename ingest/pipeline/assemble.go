package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/library"
)

// DocumentID is the library id of a file with this sha256: the same file
// ingested again replaces its document instead of adding a copy.
func DocumentID(hash string) string { return hash[:min(16, len(hash))] }

// title picks the document's title: the one asked for, the book's own,
// else the file name without its extension.
func (r *run) title(doc *ingest.Document) string {
	for _, t := range []string{r.Title, doc.Title} {
		if t = strings.TrimSpace(t); t != "" {
			return t
		}
	}
	base := filepath.Base(r.Name)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// chunks splits every page for the index, so each chunk cites its page.
// Text with Markdown headings (EPUB, Markdown) splits at them.
func (r *run) chunks(doc *ingest.Document, st Structure) []chunk.Chunk {
	var out []chunk.Chunk
	for i, p := range doc.Pages {
		var pieces []chunk.Piece
		if doc.Format == ingest.EPUB || doc.Format == ingest.Markdown {
			pieces = chunk.Markdown(p.Text, r.Tokens, chunk.Options{})
		} else {
			pieces = chunk.Plain(p.Text, r.Tokens, chunk.Options{})
		}
		for _, pc := range pieces {
			section := pc.Section
			if len(section) == 0 {
				section = st.PagePath[i]
			}
			out = append(out, chunk.Chunk{
				Corpus: chunk.Lore, Section: section, Page: p.Number, Ordinal: len(out),
				SourceType: chunk.Prose, Text: pc.Text, Tokens: pc.Tokens,
			})
		}
	}
	return out
}

func (r *run) assemble(ctx context.Context, ex extracted, st Structure, segs []Segment, classes []Class, enr enrichment, mech mechanics) (assembled, error) {
	doc := ex.Doc
	d := library.Document{
		ID: r.DocumentID, Title: r.title(doc), Format: doc.Format, Source: doc.Source, Hash: r.hash,
		Tags: r.Tags, Access: r.Access,
	}
	pages := make([]library.Page, len(doc.Pages))
	for i, p := range doc.Pages {
		pages[i] = library.Page{Number: p.Number, Label: p.Label, Text: p.Text}
	}
	images := make([]library.Image, len(doc.Images))
	for i, im := range doc.Images {
		images[i] = library.Image{Page: im.Page, Index: im.Index, Width: im.Width, Height: im.Height, MediaType: mediaType(im.MediaType), Description: im.Description, Context: im.Context}
		if i < len(ex.Data) {
			images[i].Data = ex.Data[i]
		}
		if i < len(enr.Descriptions) && enr.Descriptions[i] != "" {
			images[i].Description = enr.Descriptions[i]
		}
	}
	cs := r.chunks(doc, st)
	if err := r.Store.Put(ctx, d, pages, images, cs); err != nil {
		return assembled{}, err
	}
	d.Pages, d.Chunks = len(pages), len(cs)
	a := assembled{Doc: d, Images: len(images)}
	if r.PackDir != "" {
		if err := writePack(r.PackDir, packOf(d, r.License, segs, classes, enr.Segments, mech)); err != nil {
			return a, err
		}
		a.PackDir = r.PackDir
	}
	return a, nil
}

// validate checks what assemble wrote: the document is in the store with
// every page and chunk, no chunk is over the index's cap, and the pack (if
// any) loads without errors.
func (r *run) validate(ctx context.Context, a assembled) (validated, error) {
	var v validated
	got, err := r.Store.Document(ctx, a.Doc.ID, access.GM)
	if err != nil {
		return v, fmt.Errorf("the document is not in the library after assembling: %w", err)
	}
	if got.Pages != a.Doc.Pages || got.Chunks != a.Doc.Chunks {
		return v, fmt.Errorf("the library holds %d pages and %d chunks of document %s, want %d and %d",
			got.Pages, got.Chunks, a.Doc.ID, a.Doc.Pages, a.Doc.Chunks)
	}
	if a.Doc.Chunks == 0 {
		return v, fmt.Errorf("%w: no chunk to index", ingest.ErrNoText)
	}
	if a.PackDir == "" {
		return v, nil
	}
	rep, err := campaign.Validate(ctx, a.PackDir)
	if err != nil {
		return v, err
	}
	v.PackErrors, v.PackWarnings = rep.Summary.Errors, rep.Summary.Warnings
	if !rep.OK() {
		return v, fmt.Errorf("the pack written to %s does not validate:\n%s", a.PackDir, rep.Text())
	}
	if rep.Summary.Chunks == 0 {
		return v, fmt.Errorf("the pack written to %s has no chunks", a.PackDir)
	}
	return v, nil
}
