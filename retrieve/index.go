package retrieve

import (
	"context"

	"github.com/hearth-rpg/hearth/chunk"
)

// Index stores chunks and searches them. Implementations are safe for
// concurrent use.
type Index interface {
	// Upsert replaces every chunk of one file of a pack with chunks, in
	// one transaction, and records the file's hash. Chunks take pack,
	// file and fileHash from the arguments. An empty chunks list records
	// a file with nothing to retrieve.
	Upsert(ctx context.Context, pack, file, fileHash string, chunks []chunk.Chunk) error
	// Hashes returns the recorded hash of every file of a pack, so an
	// indexer can skip the files whose hash is unchanged.
	Hashes(ctx context.Context, pack string) (map[string]string, error)
	// DeleteFile removes one file's chunks; deleting what is not there
	// is not an error.
	DeleteFile(ctx context.Context, pack, file string) error
	// DeletePack removes every file of a pack.
	DeletePack(ctx context.Context, pack string) error
	// Search runs a query.
	Search(ctx context.Context, q Query) (Result, error)
	// Stats describes what the index holds.
	Stats(ctx context.Context) (Stats, error)
}

// Stats describes an index.
type Stats struct {
	Packs  int
	Files  int
	Chunks int
	// Vectors is how many chunks have an embedding from Embedder; fewer
	// than Chunks while embedding is incomplete.
	Vectors int
	// Embedder names the embedding space of the stored vectors and Dim
	// their length; empty and 0 when none was ever configured.
	Embedder string
	Dim      int
}
