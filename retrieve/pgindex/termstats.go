package pgindex

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Full text over common words: a question's content words match most of
// 100,000 chunks of real prose, and ranking every match means reading
// (detoasting) and ranking tens of thousands of tsvectors: seconds per
// search (BENCHMARKS.md). Counting each term's chunks per search cost
// another 0.1 s a term. So:
//
//   - each term's document frequency, and the chunk count, are kept per
//     generation of the index (lore_meta's "generation", bumped by every
//     write), and counted once per generation;
//   - only a bounded candidate set is ranked: the chunks holding one of
//     the rarest terms (together at most rankRows chunks, or the rarest
//     alone), and the chunks holding every term. When all the terms
//     together match at most rankRows chunks that is every match, and
//     the ranking is exact; otherwise a chunk holding only common terms,
//     and not all of them, is not ranked.

// rankRows bounds the chunks the rare terms may match together, and each
// part of the candidate set.
const rankRows int64 = 3000

// maxTermStats bounds the terms kept: past it the cache starts over.
const maxTermStats = 20000

// termStats caches the chunk count and each term's document frequency
// for one generation of the index.
type termStats struct {
	mu  sync.Mutex
	gen string
	n   int64 // chunks in the index; -1 until counted
	df  map[string]int64
}

// stats returns the chunk count and each term's document frequency (0
// for a term that is all stopwords), counting what the cache lacks.
func (ix *Index) termStats(ctx context.Context, terms []string) (int64, []int64, error) {
	var gen string
	if err := ix.h.Pool().QueryRow(ctx, `SELECT `+readGeneration).Scan(&gen); err != nil {
		return 0, nil, err
	}
	ts := &ix.tstats
	ts.mu.Lock()
	if ts.df == nil || ts.gen != gen || len(ts.df) > maxTermStats {
		ts.gen, ts.n, ts.df = gen, -1, map[string]int64{}
	}
	n := ts.n
	dfs := make([]int64, len(terms))
	var missing []string
	for i, t := range terms {
		d, ok := ts.df[t]
		if !ok {
			missing = append(missing, t)
		}
		dfs[i] = d
	}
	ts.mu.Unlock()
	if n < 0 {
		if err := ix.h.Pool().QueryRow(ctx, `SELECT count(*) FROM lore_chunks`).Scan(&n); err != nil {
			return 0, nil, err
		}
	}
	counted := map[string]int64{}
	if len(missing) > 0 {
		// One statement: each term's count through the GIN index.
		rows, err := ix.h.Pool().Query(ctx, `SELECT w, CASE WHEN numnode(qt) = 0 THEN 0
			ELSE (SELECT count(*) FROM lore_chunks WHERE tsv @@ qt) END
			FROM (SELECT w, plainto_tsquery('english', w) AS qt FROM unnest($1::text[]) AS u(w)) t`, missing)
		if err != nil {
			return 0, nil, err
		}
		var w string
		var d int64
		if _, err := pgx.ForEachRow(rows, []any{&w, &d}, func() error { counted[w] = d; return nil }); err != nil {
			return 0, nil, err
		}
	}
	for i, t := range terms {
		if d, ok := counted[t]; ok {
			dfs[i] = d
		}
	}
	ts.mu.Lock()
	if ts.gen == gen && ts.df != nil {
		ts.n = n
		for t, d := range counted {
			ts.df[t] = d
		}
	}
	ts.mu.Unlock()
	return n, dfs, nil
}

// idf is a term's inverse document frequency as BM25 computes it.
func idf(n, df int64) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// rareTerms returns the indexes of the rarest terms that together match
// at most rankRows chunks (the rarest one at least), skipping terms that
// match nothing, and whether they are every term that matches anything
// and match at most rankRows chunks together: then ranking their matches
// is ranking every match.
func rareTerms(dfs []int64, rankRows int64) (rare []int, all bool) {
	var idx []int
	for i, d := range dfs {
		if d > 0 {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(dfs[a], dfs[b]) })
	var sum int64
	for j, i := range idx {
		if j > 0 && sum+dfs[i] > rankRows {
			return rare, false
		}
		sum += dfs[i]
		rare = append(rare, i)
	}
	return rare, sum <= rankRows
}
