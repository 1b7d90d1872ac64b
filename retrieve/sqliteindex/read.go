package sqliteindex

import (
	"context"

	"github.com/hearth-rpg/hearth/chunk"
)

// Chunks returns every chunk of one file of a pack, in order, whatever its
// access level: for re-indexing a file whose metadata changed (a library
// document's title, tags or access), never for answering a reader.
func (ix *Index) Chunks(ctx context.Context, pack, file string) ([]chunk.Chunk, error) {
	rows, err := ix.r.QueryContext(ctx, `SELECT `+chunkColumns+` FROM lore_chunks
		WHERE pack = ? AND file = ? ORDER BY ordinal, n`, pack, file)
	if err != nil {
		return nil, ix.explain("read lore chunks", err)
	}
	defer rows.Close()
	var out []chunk.Chunk
	for rows.Next() {
		_, c, err := scanChunk(rows)
		if err != nil {
			return nil, ix.explain("read lore chunks", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, ix.explain("read lore chunks", err)
	}
	return out, nil
}
