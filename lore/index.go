package lore

import (
	"context"
	"fmt"
	"slices"

	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/tokens"
)

// IndexReport says what indexing a pack did.
type IndexReport struct {
	Pack      string
	Files     int // files in the pack
	Indexed   int // files (re)indexed because they were new or changed
	Unchanged int // files skipped: same content hash as indexed
	Removed   int // files no longer in the pack, removed from the index
	Chunks    int // chunks written
}

// Progress is told about each file as indexing passes it.
type Progress func(done, total int, file string)

// indexBatch is how many files are chunked at once: enough to keep every
// core busy, few enough that a cancelled build stops soon.
const indexBatch = 16

// Stale counts the files of p that IndexPack would write or remove: 0
// when the index is up to date with p.
func Stale(ctx context.Context, ix retrieve.Index, p *campaign.Pack) (int, error) {
	have, err := ix.Hashes(ctx, p.Manifest.ID)
	if err != nil {
		return 0, fmt.Errorf("index pack %s: %w", p.Manifest.ID, err)
	}
	n := 0
	for _, f := range p.Files {
		if h, ok := have[f.Path]; !ok || h != f.Hash {
			n++
		}
		delete(have, f.Path)
	}
	return n + len(have), nil
}

// IndexPack brings the index up to date with p, incrementally: only files
// whose content hash changed are chunked and written again, and files that
// left the pack leave the index.
func IndexPack(ctx context.Context, ix retrieve.Index, p *campaign.Pack, tok *tokens.Counter, progress Progress) (IndexReport, error) {
	id := p.Manifest.ID
	rep := IndexReport{Pack: id, Files: len(p.Files)}
	have, err := ix.Hashes(ctx, id)
	if err != nil {
		return rep, fmt.Errorf("index pack %s: %w", id, err)
	}
	changed, present := map[string]bool{}, map[string]bool{}
	for _, f := range p.Files {
		present[f.Path] = true
		if have[f.Path] != f.Hash {
			changed[f.Path] = true
		}
	}
	// Files are chunked a batch at a time, so a cancelled build stops
	// within one batch, and every file written is complete with its hash:
	// the next build picks up where this one stopped.
	for start := 0; start < len(p.Files); start += indexBatch {
		files := p.Files[start:min(start+indexBatch, len(p.Files))]
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		byFile := map[string][]chunk.Chunk{}
		if slices.ContainsFunc(files, func(f campaign.File) bool { return changed[f.Path] }) {
			inBatch := map[string]bool{}
			for _, f := range files {
				inBatch[f.Path] = changed[f.Path]
			}
			for _, c := range p.ChunksOf(tok, func(path string) bool { return inBatch[path] }) {
				byFile[c.File] = append(byFile[c.File], c)
			}
		}
		for j, f := range files {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			if progress != nil {
				progress(start+j, len(p.Files), f.Path)
			}
			if !changed[f.Path] {
				rep.Unchanged++
				continue
			}
			cs := byFile[f.Path]
			if err := ix.Upsert(ctx, id, f.Path, f.Hash, cs); err != nil {
				return rep, fmt.Errorf("index %s of pack %s: %w", f.Path, id, err)
			}
			rep.Indexed++
			rep.Chunks += len(cs)
		}
	}
	var gone []string
	for path := range have {
		if !present[path] {
			gone = append(gone, path)
		}
	}
	slices.Sort(gone)
	for _, path := range gone {
		if err := ix.DeleteFile(ctx, id, path); err != nil {
			return rep, fmt.Errorf("remove %s of pack %s from the index: %w", path, id, err)
		}
		rep.Removed++
	}
	if o, ok := ix.(optimizer); ok && rep.Indexed+rep.Removed > 0 {
		if err := o.Optimize(ctx); err != nil {
			return rep, fmt.Errorf("index pack %s: %w", id, err)
		}
	}
	if progress != nil {
		progress(len(p.Files), len(p.Files), "")
	}
	return rep, nil
}

// optimizer is an index that can make its searches cheaper once a pack
// is written (sqliteindex).
type optimizer interface {
	Optimize(ctx context.Context) error
}
