package ingest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/hearth-rpg/hearth"
)

// Extractor reads one format's bytes into a Document. Progress, when not
// nil, is told how many units (pages, spine items) are done of how many.
// An Extractor must not panic on any input and must honour ctx.
type Extractor interface {
	Extract(ctx context.Context, data []byte, progress func(done, total int)) (*Document, error)
}

// ExtractorFunc adapts a function to Extractor.
type ExtractorFunc func(ctx context.Context, data []byte, progress func(done, total int)) (*Document, error)

// Extract calls f.
func (f ExtractorFunc) Extract(ctx context.Context, data []byte, progress func(done, total int)) (*Document, error) {
	return f(ctx, data, progress)
}

// Errors an extractor or the pipeline returns, wrapped with what and where.
// Callers test them with errors.Is to pick the message a user sees.
var (
	ErrUnsupported = &hearth.Error{Code: hearth.Invalid, Message: "unsupported format"}
	ErrEmpty       = &hearth.Error{Code: hearth.Invalid, Message: "the file is empty"}
	ErrTooLarge    = &hearth.Error{Code: hearth.Invalid, Message: "the file is too large"}
	ErrCorrupt     = &hearth.Error{Code: hearth.Invalid, Message: "the file is damaged or not what its name says"}
	ErrEncrypted   = &hearth.Error{Code: hearth.Invalid, Message: "the file is encrypted"}
	// ErrNoText is for a document whose pages hold no text: a scan.
	ErrNoText = &hearth.Error{Code: hearth.Invalid, Message: "no text found: the pages look like images, and OCR is not available"}
)

// Registry maps format names (pdf, epub, markdown, text) to extractors.
// The zero value is empty and ready to use; it is safe for concurrent use.
type Registry struct {
	mu sync.RWMutex
	m  map[string]Extractor
}

// Register makes e the extractor of format, replacing any before it.
func (r *Registry) Register(format string, e Extractor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]Extractor{}
	}
	r.m[format] = e
}

// Lookup returns the extractor of format, or an error wrapping
// ErrUnsupported that lists the formats there are.
func (r *Registry) Lookup(format string) (Extractor, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e, ok := r.m[format]; ok {
		return e, nil
	}
	return nil, fmt.Errorf("%w: no extractor for %s (this build reads %v)", ErrUnsupported, format, r.formats())
}

// Formats lists the registered formats, sorted.
func (r *Registry) Formats() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.formats()
}

func (r *Registry) formats() []string {
	fs := make([]string, 0, len(r.m))
	for f := range r.m {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	return slices.Clip(fs)
}
