package narrative

import "context"

// Embedder turns texts into vectors, one per text, all of one dimension:
// the seed's sentence-transformers model or any other. Memories and the
// queries that recall them must use the same model.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
