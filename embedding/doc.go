// Package embedding turns text into vectors for similarity search.
//
// An Embedder maps texts to L2-normalised float32 vectors of a fixed
// dimension, so that the dot product of two vectors is their cosine
// similarity. FromProvider wraps a model server's embedding endpoint
// (llm.Provider.Embed); NewHashing is a deterministic offline embedder
// built from hashed word and character n-grams, which needs no model and
// lets tests and offline users exercise the vector path. Dot, Normalize,
// Encode and Decode are the small numeric helpers a vector index needs.
//
// The package owns vectors, not their storage or search: it knows
// nothing of chunks, indexes or access levels (the retrieve packages do).
package embedding
