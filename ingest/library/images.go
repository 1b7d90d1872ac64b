package library

import (
	"context"
	"fmt"

	"github.com/hearth-rpg/hearth/access"
)

// ImageQuery selects images. Every field is optional but Role, which
// filters through each image's document: an image is seen only by those
// who may read its document.
type ImageQuery struct {
	// Text searches the images' descriptions (weighted most) and the text
	// around them; the best matches come first. Without it, images come
	// in document, page and index order. It is words, never a query
	// language: no text makes the search fail.
	Text     string
	Document string // one document's images
	Page     int    // images on this page
	Role     access.Level
	Limit    int  // default DefaultImageLimit, at most MaxImageLimit
	WithData bool // read the picture's bytes too
}

// Image search limits.
const (
	DefaultImageLimit = 50
	MaxImageLimit     = 500
)

// SearchImages returns the images q selects that q.Role may see.
func (l *Library) SearchImages(ctx context.Context, q ImageQuery) ([]Image, error) {
	if q.Limit <= 0 {
		q.Limit = DefaultImageLimit
	}
	q.Limit = min(q.Limit, MaxImageLimit)
	return l.st.SearchImages(ctx, q)
}

// Images lists a document's images that role may see — on one page, or
// on all pages when page is 0 — without their bytes unless withData.
func (l *Library) Images(ctx context.Context, docID string, page int, role access.Level, withData bool) ([]Image, error) {
	if docID == "" {
		return nil, nil // not every document's: SearchImages does that
	}
	ims, err := l.SearchImages(ctx, ImageQuery{Document: docID, Page: page, Role: role, Limit: MaxImageLimit, WithData: withData})
	if err != nil {
		return nil, fmt.Errorf("images of document %q: %w", docID, err)
	}
	return ims, nil
}

// Image returns one image by id if role may see its document.
func (l *Library) Image(ctx context.Context, id int64, role access.Level, withData bool) (Image, error) {
	return l.st.Image(ctx, id, role, withData)
}
