package sqlitelibrary

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest/library"
)

const (
	maxSearchTerms = 16
	// descriptionWeight ranks a word in the description above the same
	// word in the page text near the image.
	descriptionWeight = 4.0
)

const imageColumns = `i.id, i.document, i.page, i.idx, i.width, i.height, i.media_type, i.description, i.context`

func scanImage(rows *sql.Rows, withData bool) (library.Image, error) {
	var im library.Image
	dest := []any{&im.ID, &im.Document, &im.Page, &im.Index, &im.Width, &im.Height, &im.MediaType, &im.Description, &im.Context}
	if withData {
		dest = append(dest, &im.Data)
	}
	err := rows.Scan(dest...)
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
	where := `d.access <= ? AND (? = '' OR i.document = ?) AND (? = 0 OR i.page = ?)`
	args := []any{level(q.Role), q.Document, q.Document, q.Page, q.Page}
	var query string
	if strings.TrimSpace(q.Text) == "" {
		query = `SELECT ` + cols + ` FROM library_images i JOIN library_documents d ON d.id = i.document
			WHERE ` + where + ` ORDER BY i.document, i.page, i.idx LIMIT ?`
	} else {
		match := matchAny(q.Text)
		if match == "" {
			return nil, nil // no word to look for: nothing matches
		}
		query = fmt.Sprintf(`SELECT `+cols+` FROM library_images_fts f
			JOIN library_images i ON i.id = f.rowid
			JOIN library_documents d ON d.id = i.document
			WHERE library_images_fts MATCH ? AND `+where+`
			ORDER BY bm25(library_images_fts, %.1f, 1.0), i.id LIMIT ?`, descriptionWeight)
		args = append([]any{match}, args...)
	}
	rows, err := s.r.QueryContext(ctx, query, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("search images: %w", err)
	}
	defer rows.Close()
	var out []library.Image
	for rows.Next() {
		im, err := scanImage(rows, q.WithData)
		if err != nil {
			return nil, fmt.Errorf("search images: %w", err)
		}
		out = append(out, im)
	}
	return out, rows.Err()
}

// stopWords match nearly every description and would rank nothing.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "by": true, "for": true,
	"from": true, "in": true, "is": true, "it": true, "of": true, "on": true, "or": true, "the": true,
	"this": true, "to": true, "with": true,
}

// matchAny makes an FTS5 expression matching any word of text but the
// stop words. User text never reaches FTS5's syntax: each term holds
// only letters and digits and is quoted.
func matchAny(text string) string {
	terms := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	seen := map[string]bool{}
	var quoted []string
	for _, t := range terms {
		if seen[t] || stopWords[t] {
			continue
		}
		seen[t] = true
		quoted = append(quoted, `"`+t+`"`)
		if len(quoted) == maxSearchTerms {
			break
		}
	}
	return strings.Join(quoted, " OR ")
}

// Image implements library.Store.
func (s *Store) Image(ctx context.Context, id int64, role access.Level, withData bool) (library.Image, error) {
	cols := imageColumns
	if withData {
		cols += ", i.data"
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+cols+` FROM library_images i JOIN library_documents d ON d.id = i.document
		WHERE i.id = ? AND d.access <= ?`, id, level(role))
	if err != nil {
		return library.Image{}, fmt.Errorf("image %d: %w", id, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return library.Image{}, fmt.Errorf("image %d: %w", id, err)
		}
		return library.Image{}, fmt.Errorf("image %d: %w", id, library.ErrNotFound)
	}
	im, err := scanImage(rows, withData)
	if err != nil {
		return library.Image{}, fmt.Errorf("image %d: %w", id, err)
	}
	return im, nil
}
