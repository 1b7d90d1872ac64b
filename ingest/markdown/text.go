package markdown

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hearth-rpg/hearth/ingest"
)

// PageWords is the size of a page of text without headings.
const PageWords = 600

// MaxBytes caps the text one file may hold: 64 MiB is far past any book.
const MaxBytes = 64 << 20

// Text reads plain text.
type Text struct{}

var _ ingest.Extractor = Text{}

// Extract pages plain text by paragraphs.
func (Text) Extract(ctx context.Context, data []byte, progress func(done, total int)) (*ingest.Document, error) {
	s, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("read text: %w", err)
	}
	doc := &ingest.Document{Format: ingest.Text}
	for i, p := range pageParagraphs(paragraphs(s), PageWords) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		doc.Pages = append(doc.Pages, ingest.Page{Number: i + 1, Text: p})
	}
	if progress != nil {
		progress(len(doc.Pages), len(doc.Pages))
	}
	if len(doc.Pages) == 0 {
		return nil, fmt.Errorf("read text: %w: only white space", ingest.ErrEmpty)
	}
	return doc, nil
}

// decode checks the bytes are UTF-8 text and normalises line endings.
func decode(data []byte) (string, error) {
	switch {
	case len(data) == 0:
		return "", ingest.ErrEmpty
	case len(data) > MaxBytes:
		return "", fmt.Errorf("%w: %d bytes of text, more than the %d allowed", ingest.ErrTooLarge, len(data), MaxBytes)
	case !utf8.Valid(data):
		return "", fmt.Errorf("%w: the file is not UTF-8 text", ingest.ErrCorrupt)
	case strings.IndexByte(string(data[:min(len(data), 8192)]), 0) >= 0:
		return "", fmt.Errorf("%w: the file holds binary data (NUL bytes), not text", ingest.ErrCorrupt)
	}
	s := strings.TrimPrefix(string(data), "\ufeff")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n"), nil
}

// paragraphs splits text at blank lines, trimming each.
func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\n\n") {
		if p = strings.Trim(p, "\n"); strings.TrimSpace(p) != "" {
			out = append(out, strings.TrimRight(p, " \t\n"))
		}
	}
	return out
}

// pageParagraphs gathers paragraphs into pages of about words words. A
// paragraph over twice that is cut between words so no page runs away.
func pageParagraphs(ps []string, words int) []string {
	var pages []string
	var cur []string
	n := 0
	flush := func() {
		if len(cur) > 0 {
			pages = append(pages, strings.Join(cur, "\n\n"))
		}
		cur, n = nil, 0
	}
	for _, p := range ps {
		w := len(strings.Fields(p))
		if w > 2*words {
			flush()
			fs := strings.Fields(p)
			for len(fs) > 0 {
				k := min(words, len(fs))
				pages = append(pages, strings.Join(fs[:k], " "))
				fs = fs[k:]
			}
			continue
		}
		if n > 0 && n+w > words {
			flush()
		}
		cur = append(cur, p)
		n += w
	}
	flush()
	return pages
}
