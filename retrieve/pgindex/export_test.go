package pgindex

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/retrieve"
)

// RankRows is the full-text candidate bound.
const RankRows = rankRows

// VectorHits runs the vector search alone, as the GM with no filter, and
// returns the chunk rows best first: for measuring HNSW against the
// exact scan.
func (ix *Index) VectorHits(ctx context.Context, text string, k int) ([]int64, error) {
	gen, err := ix.generation(ctx)
	if err != nil {
		return nil, err
	}
	hits, _, err := ix.vectorSearch(ctx, gen, text, int(access.GM), retrieve.Filter{}, k)
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.n
	}
	return out, err
}

// ExactHits is the exact nearest vectors to text by pgvector's cosine
// distance with its index turned off (a sequential scan in C), as the GM
// with no filter: the reference HNSW's recall is measured against.
func (ix *Index) ExactHits(ctx context.Context, text string, k int) ([]int64, error) {
	vecs, err := ix.emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	dim := strconv.Itoa(ix.emb.Dim())
	var out []int64
	err = ix.h.Tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL enable_indexscan = off`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT chunk FROM lore_vectors ORDER BY vec::vector(`+dim+`) <=> $1::real[]::vector(`+dim+`), chunk LIMIT $2`, vecs[0], k)
		if err != nil {
			return err
		}
		var n int64
		_, err = pgx.ForEachRow(rows, []any{&n}, func() error { out = append(out, n); return nil })
		return err
	})
	return out, err
}

// FullTextHits is the full-text ranking alone, as the GM with no filter,
// ranking at most about 2 × bound chunks (math.MaxInt64: every match).
func (ix *Index) FullTextHits(ctx context.Context, text string, k int, bound int64) ([]int64, error) {
	hits, err := ix.fullTextBound(ctx, retrieve.Terms(text), int(access.GM), retrieve.Filter{}, k, bound)
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.n
	}
	return out, err
}

// SetMemFullText turns the in-memory full text on or off, so a test can
// measure the tsvector ranking it falls back to.
func (ix *Index) SetMemFullText(on bool) {
	ix.mem.mu.Lock()
	ix.mem.off = !on
	ix.mem.mu.Unlock()
}

// MemVectorHits runs the in-memory vector search alone, as the GM with
// no filter; ok is false when the in-memory vectors do not serve the
// index as it now stands.
func (ix *Index) MemVectorHits(ctx context.Context, text string, k int) (rows []int64, scores []float64, ok bool, err error) {
	vecs, err := ix.emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, nil, false, err
	}
	gen, err := ix.generation(ctx)
	if err != nil {
		return nil, nil, false, err
	}
	hits, _, ok, err := ix.memVectorSearch(ctx, gen, vecs[0], int(access.GM), retrieve.Filter{}, k)
	for _, h := range hits {
		rows, scores = append(rows, h.n), append(scores, h.score)
	}
	return rows, scores, ok, err
}

// VectorReads is how many times the in-memory vectors began a read of
// every vector (rather than catching up from the change log).
func (ix *Index) VectorReads() int {
	ix.vecs.mu.Lock()
	defer ix.vecs.mu.Unlock()
	return ix.vecs.reads
}

// SetVectorCatchUp turns catching up from the change log on or off; off,
// a write makes the next search read every vector again, as before the
// log existed: for measuring one against the other.
func (ix *Index) SetVectorCatchUp(on bool) {
	ix.vecs.mu.Lock()
	defer ix.vecs.mu.Unlock()
	ix.vecs.update = nil
	if on {
		ix.vecs.update = ix.catchUpVecs
	}
}

// MemTextHits runs the in-memory full text alone for text's words as
// role with f, with BM25's scores; ok is false when it does not serve the
// index as it now stands.
func (ix *Index) MemTextHits(ctx context.Context, text string, role access.Level, f retrieve.Filter, k int) (rows []int64, scores []float64, ok bool, err error) {
	gen, err := ix.generation(ctx)
	if err != nil {
		return nil, nil, false, err
	}
	hits, ok, err := ix.memRank(ctx, gen, retrieve.Terms(text), int(role), f, k)
	for _, h := range hits {
		rows, scores = append(rows, h.Row), append(scores, h.Score)
	}
	return rows, scores, ok, err
}

// FullTextReads is how many times the in-memory full text was built
// whole (rather than caught up from the change log).
func (ix *Index) FullTextReads() int {
	ix.mem.mu.Lock()
	defer ix.mem.mu.Unlock()
	return ix.mem.reads
}

// SetFullTextCatchUp turns the full text's catch-up from the change log
// on or off (off: built whole after every write, as before).
func (ix *Index) SetFullTextCatchUp(on bool) {
	ix.mem.mu.Lock()
	defer ix.mem.mu.Unlock()
	ix.mem.update = nil
	if on {
		ix.mem.update = ix.catchUpMem
	}
}
