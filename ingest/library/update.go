package library

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
)

// Change edits a document's record; nil fields stay as they are.
type Change struct {
	Title  *string
	Tags   *[]string
	Access *access.Level
}

// chunkReader is an index that can give back a file's chunks, whatever
// their access: what Update needs to re-index a document.
type chunkReader interface {
	Chunks(ctx context.Context, pack, file string) ([]chunk.Chunk, error)
}

// Update changes a document's title, tags or access level, if role may
// read it, and re-indexes its chunks to match (they carry the title as
// their file name, and copies of the tags and level). Whether role may
// grant the new level is the caller's decision. It returns the changed
// record.
func (l *Library) Update(ctx context.Context, id string, role access.Level, ch Change) (Document, error) {
	old, err := l.Document(ctx, id, role)
	if err != nil {
		return old, err
	}
	d := old
	if ch.Title != nil {
		if d.Title = strings.TrimSpace(*ch.Title); d.Title == "" {
			return old, hearth.Errorf(hearth.Invalid, "update document %s: the title may not be empty", id)
		}
	}
	if ch.Tags != nil {
		d.Tags = append([]string(nil), *ch.Tags...)
		if len(d.Tags) == 0 {
			d.Tags = nil
		}
	}
	if ch.Access != nil {
		if *ch.Access < access.Player || *ch.Access > access.GM {
			return old, hearth.Errorf(hearth.Invalid, "update document %s: access level %d is not one of player (1) to gm_only (4)", id, int(*ch.Access))
		}
		d.Access = *ch.Access
	}
	cr, ok := l.ix.(chunkReader)
	if !ok {
		return old, fmt.Errorf("update document %s: the index cannot give its chunks back to re-index them", id)
	}
	cs, err := cr.Chunks(ctx, old.Pack(), old.File())
	if err != nil {
		return old, fmt.Errorf("update document %s: %w", id, err)
	}
	if err := l.reindex(ctx, old, d, cs); err != nil {
		return old, err
	}
	if err := l.st.UpdateDocument(ctx, d); err != nil {
		// Put the chunks back as they were, so search matches the record.
		return old, errors.Join(fmt.Errorf("update document %s: %w", id, err), l.reindex(context.WithoutCancel(ctx), d, old, cs))
	}
	return d, nil
}

// reindex writes cs again as the chunks of to, replacing those of from.
// Chunk ids are unique across the index, so a renamed file's old chunks
// go first.
func (l *Library) reindex(ctx context.Context, from, to Document, cs []chunk.Chunk) error {
	out := make([]chunk.Chunk, len(cs))
	for i, c := range cs {
		c.Access, c.Tags = to.Access, to.Tags
		out[i] = c
	}
	if from.File() != to.File() {
		if err := l.ix.DeleteFile(ctx, from.Pack(), from.File()); err != nil {
			return fmt.Errorf("update document %s: re-index its chunks: %w", to.ID, err)
		}
	}
	if err := l.ix.Upsert(ctx, to.Pack(), to.File(), to.Hash, out); err != nil {
		err = fmt.Errorf("update document %s: re-index its chunks: %w", to.ID, err)
		if from.File() != to.File() { // the old chunks are gone: put them back
			err = errors.Join(err, l.ix.Upsert(context.WithoutCancel(ctx), from.Pack(), from.File(), from.Hash, cs))
		}
		return err
	}
	return nil
}
