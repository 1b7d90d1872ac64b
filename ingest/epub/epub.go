package epub

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/hearth-rpg/hearth/ingest"
)

// Extractor reads EPUB books. The zero value uses the default limits.
type Extractor struct {
	Limits Limits
}

var _ ingest.Extractor = (*Extractor)(nil)

// New returns an extractor with the given limits.
func New(l Limits) *Extractor { return &Extractor{Limits: l} }

// Extract reads an EPUB: one page per spine item, in spine order, and the
// navigation document as the outline. Errors wrap ingest.ErrCorrupt for a
// damaged or hostile archive and ingest.ErrTooLarge past the limits.
func (e *Extractor) Extract(ctx context.Context, data []byte, progress func(done, total int)) (*ingest.Document, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("read EPUB: %w", ingest.ErrEmpty)
	}
	a, err := openArchive(data, e.Limits.norm())
	if err != nil {
		return nil, fmt.Errorf("read EPUB: %w", err)
	}
	doc, err := read(ctx, a, progress)
	if err != nil {
		return nil, fmt.Errorf("read EPUB: %w", err)
	}
	return doc, nil
}

func read(ctx context.Context, a *archive, progress func(done, total int)) (*ingest.Document, error) {
	root, err := rootfile(a)
	if err != nil {
		return nil, err
	}
	b, err := a.open(root)
	if err != nil {
		return nil, err
	}
	var pkg opf
	if err := decodeXML(root, b, &pkg); err != nil {
		return nil, err
	}
	type item struct{ href, mediaType, props string }
	items := map[string]item{}
	var navPath, ncxPath string
	for _, it := range pkg.Items {
		p, err := resolve(root, it.Href)
		if err != nil {
			return nil, fmt.Errorf("manifest item %q: %w", it.ID, err)
		}
		items[it.ID] = item{p, it.MediaType, it.Properties}
		switch {
		case hasWord(it.Properties, "nav"):
			navPath = p
		case it.MediaType == "application/x-dtbncx+xml" && (ncxPath == "" || it.ID == pkg.Spine.Toc):
			ncxPath = p
		}
	}
	doc := &ingest.Document{Format: ingest.EPUB, Meta: map[string]string{}}
	if len(pkg.Metadata.Titles) > 0 {
		doc.Title = strings.TrimSpace(pkg.Metadata.Titles[0])
	}
	for k, v := range map[string][]string{"author": pkg.Metadata.Creators, "language": pkg.Metadata.Language, "rights": pkg.Metadata.Rights} {
		if len(v) > 0 && strings.TrimSpace(v[0]) != "" {
			doc.Meta[k] = strings.TrimSpace(v[0])
		}
	}
	if pkg.Version != "" {
		doc.Meta["epub_version"] = pkg.Version
	}
	// The spine: one page per item, in order.
	spine := make([]string, 0, len(pkg.Spine.Items))
	for _, ref := range pkg.Spine.Items {
		it, ok := items[ref.IDRef]
		if !ok {
			return nil, fmt.Errorf("%w: the spine names %q, which the manifest lacks", ingest.ErrCorrupt, ref.IDRef)
		}
		spine = append(spine, it.href)
	}
	if len(spine) == 0 {
		return nil, fmt.Errorf("%w: the book's spine is empty: there is nothing to read", ingest.ErrCorrupt)
	}
	pageByPath := map[string]int{}
	titles := make([]string, len(spine))
	images := newImageReader(a)
	for i, p := range spine {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := a.open(p)
		if err != nil {
			return nil, fmt.Errorf("spine item %d: %w", i+1, err)
		}
		pg := readPage(b)
		doc.Pages = append(doc.Pages, ingest.Page{Number: i + 1, Label: path.Base(p), Text: pg.text})
		titles[i] = pg.title
		ims, warnings := images.page(ctx, i+1, p, pg.images, pg.raw)
		doc.Images = append(doc.Images, ims...)
		doc.Warnings = append(doc.Warnings, warnings...)
		if _, dup := pageByPath[p]; !dup {
			pageByPath[p] = i + 1
		}
		if progress != nil {
			progress(i+1, len(spine))
		}
	}
	page := func(base string) pageOf {
		return func(href string) int {
			p, err := resolve(base, href)
			if err != nil {
				return 0
			}
			return pageByPath[p]
		}
	}
	switch {
	case navPath != "":
		if b, err := a.open(navPath); err == nil {
			doc.Outline = navOutline(b, page(navPath))
		}
	case ncxPath != "":
		if b, err := a.open(ncxPath); err == nil {
			doc.Outline, _ = ncxOutline(b, ncxPath, page(ncxPath)) // a broken NCX leaves the fallback
		}
	}
	if len(doc.Outline) == 0 { // no navigation: each item's first heading
		for i, t := range titles {
			if t != "" {
				doc.Outline = append(doc.Outline, &ingest.Section{Title: t, Level: 1, Page: i + 1})
			}
		}
	}
	return doc, nil
}

func hasWord(list, w string) bool {
	for _, f := range strings.Fields(list) {
		if f == w {
			return true
		}
	}
	return false
}
