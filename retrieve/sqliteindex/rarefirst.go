package sqliteindex

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"
)

// Full text over common words: FTS5 scores every row a query matches,
// and over 100,000 chunks of real prose the words of a question match
// most of them (BenchmarkSearch100k: a question's content words matched
// 84,524 of 100,000 chunks, and ranking them took 0.3 s of C). BM25 is a
// sum over the query's terms, and a term's share of it is below
// idf × (k1 + 1) whatever the chunk: a chunk holding none of the rare
// terms scores below the common terms' summed bound. So:
//
//  1. Split the terms by how many chunks hold each (kept per index
//     generation): the rarest, together matching at most rareRows rows
//     (or the rarest one alone, up to 4 × rareRows), and the common rest.
//  2. Score only the rows holding a rare term, by the whole query: FTS5's
//     BM25 of "(rare) AND (all terms)" counts each rare term twice, so
//     subtracting the BM25 of "(rare)" over the same rows leaves exactly
//     the whole query's score.
//  3. If k rows come back and the k-th scores at least the common terms'
//     bound, no other row can enter the top k: the ranking is the one
//     scoring every match gives. Otherwise rank every match as before.
//
// The split is exact, not a heuristic: the top k and their scores are
// BM25's (TestRareFirstRanksAsWhole), up to the order of equal scores.

// rareRows bounds the rows the rare terms may match together.
const rareRows = 3000

// FTS5's BM25 parameters (fts5_aux.c).
const bm25K1 = 1.2

// termStats caches how many rows hold each term, and the row count, for
// one generation of the index.
type termStats struct {
	mu  sync.Mutex
	gen string
	n   int64 // rows in the index; 0 until read
	df  map[string]int64
}

// maxTermStats bounds the terms kept: past it the cache starts over.
const maxTermStats = 20000

// stats returns the row count and each term's row count, reading what the
// cache lacks.
func (ix *Index) termStats(ctx context.Context, gen string, terms []string) (int64, []int64, error) {
	ts := &ix.tstats
	ts.mu.Lock()
	if ts.gen != gen || len(ts.df) > maxTermStats {
		ts.gen, ts.n, ts.df = gen, 0, map[string]int64{}
	}
	n := ts.n
	dfs := make([]int64, len(terms))
	var missing []int
	for i, t := range terms {
		d, ok := ts.df[t]
		if !ok {
			missing = append(missing, i)
		}
		dfs[i] = d
	}
	ts.mu.Unlock()
	if n == 0 {
		if err := ix.scalar(ctx, &n, `SELECT COUNT(*) FROM lore_chunks`); err != nil {
			return 0, nil, err
		}
	}
	for _, i := range missing {
		if err := ix.scalar(ctx, &dfs[i], `SELECT COUNT(*) FROM lore_fts WHERE lore_fts MATCH ?`, quote(terms[i])); err != nil {
			return 0, nil, err
		}
	}
	ts.mu.Lock()
	if ts.gen == gen {
		ts.n = n
		for _, i := range missing {
			ts.df[terms[i]] = dfs[i]
		}
	}
	ts.mu.Unlock()
	return n, dfs, nil
}

func (ix *Index) scalar(ctx context.Context, dst *int64, query string, args ...any) error {
	rows, err := ix.stmts.query(ctx, query, args...)
	if err != nil {
		return ix.explain("search the lore index's full text", err)
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(dst); err != nil {
			return ix.explain("search the lore index's full text", err)
		}
	}
	return ix.explain("search the lore index's full text", rows.Err())
}

// quote makes a term an FTS5 string (terms hold no quotes: see matchQuery).
func quote(t string) string { return `"` + t + `"` }

// idf is FTS5's BM25 inverse document frequency.
func idf(n, df int64) float64 {
	v := math.Log((float64(n) - float64(df) + 0.5) / (float64(df) + 0.5))
	if v <= 0 {
		return 1e-6
	}
	return v
}

// rareFirst ranks terms' matches as fullText does when the rare terms
// decide the top k; ok is false when they may not, and the caller ranks
// every match.
// maxRare bounds the rows the rare terms may match together (rareRows).
func (ix *Index) rareFirst(ctx context.Context, gen string, terms []string, role int, cond string, args []any, k int, maxRare int64) (_ []hit, ok bool, _ error) {
	if len(terms) < 2 {
		return nil, false, nil
	}
	n, dfs, err := ix.termStats(ctx, gen, terms)
	if err != nil {
		return nil, false, err
	}
	order := make([]int, len(terms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(dfs[a], dfs[b]) })
	var rare, all []string
	var rows int64
	bound := 0.0
	for _, i := range order {
		// The rarest term alone may match up to 4 × maxRare rows: scoring
		// them is less work than scoring every match, and the bound may
		// still hold. Past that, a miss (the bound fails and every match
		// is ranked after all) costs more than the hits save.
		if bound == 0 && (rows+dfs[i] <= maxRare || len(rare) == 0 && dfs[i] <= 4*maxRare) {
			rows += dfs[i]
			rare = append(rare, quote(terms[i]))
		} else {
			bound += idf(n, dfs[i]) * (bm25K1 + 1)
		}
		all = append(all, quote(terms[i]))
	}
	if len(rare) == 0 || bound == 0 {
		return nil, false, nil // nothing rare, or nothing common: rank every match
	}
	rareQ := strings.Join(rare, " OR ")
	// CROSS JOIN keeps FTS5 the outer loop: looked up by row instead, it
	// would recount every term's rows for each.
	query := `WITH r AS MATERIALIZED (SELECT rowid AS n, rank AS s FROM lore_fts WHERE lore_fts MATCH ?)
		SELECT f.rowid, r.s - f.rank FROM lore_fts f CROSS JOIN r CROSS JOIN lore_chunks c
		WHERE f.lore_fts MATCH ? AND r.n = f.rowid AND c.n = f.rowid AND c.access <= ?` + cond +
		` ORDER BY f.rank - r.s, f.rowid LIMIT ?`
	qargs := append([]any{rareQ, "(" + rareQ + ") AND (" + strings.Join(all, " OR ") + ")", role}, args...)
	hits, err := ix.hits(ctx, query, append(qargs, k)...)
	if err != nil {
		return nil, false, ix.explain("search the lore index's full text", err)
	}
	if len(hits) < k || float64(hits[k-1].score) < bound {
		return nil, false, nil
	}
	return hits, true, nil
}
