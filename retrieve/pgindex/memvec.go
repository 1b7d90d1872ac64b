package pgindex

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/memtext"
	"github.com/hearth-rpg/hearth/retrieve/memvec"
)

// Vectors in memory: the same retrieve/memvec search the SQLite backend
// runs (an int8 estimate over the query's largest dimensions, then an
// exact re-rank of the best candidates), loaded from lore_vectors and
// each chunk's access level. Like the in-memory full text (memtext.go)
// it is built in the background for the index's generation, which every
// writing transaction bumps (so any server's write makes every server's
// copy stale at once), in a repeatable-read transaction that reads the
// generation with the rows. Until it is built, and while it is stale,
// the pgvector (or SQL) search of Mode serves.

// memVecs is the vectors in memory, per generation (built.go).
type memVecs = built[vecSnapshot]

type vecSnapshot struct {
	set  *memvec.Set
	rows []int64         // the rows with a vector, ascending
	cols memtext.Columns // their access levels and filter columns
}

// memVectorSearch searches the in-memory vectors for q with the role
// and filter, when they serve generation gen (the current one); ok is false when
// they do not (yet), and ran is false when there are no vectors at all.
func (ix *Index) memVectorSearch(ctx context.Context, gen string, q []float32, role int, f retrieve.Filter, k int) (_ []hit, ran, ok bool, _ error) {
	snap := ix.vecSnapshot(ctx, gen)
	if snap == nil {
		return nil, false, false, nil
	}
	if snap.set.Len() == 0 {
		return nil, false, true, nil
	}
	var allowed []int64
	if !f.IsZero() {
		// The filter's columns are tested in Go and its entities, threads
		// and tags in SQL, as for the in-memory full text; the search
		// then visits only the rows that pass.
		accept, err := ix.accept(ctx, &snap.cols, snap.rows, role, f)
		if err != nil {
			return nil, false, false, err
		}
		allowed = []int64{} // none pass: not "no filter"
		for d, n := range snap.rows {
			if accept(d) {
				allowed = append(allowed, n)
			}
		}
	}
	found := snap.set.Search(q, role, k, allowed, ix.cands, &ix.vecPool)
	hits := make([]hit, len(found))
	for i, h := range found {
		hits[i] = hit{n: h.Row, score: float64(h.Score)}
	}
	return hits, true, true, nil
}

// vecSnapshot returns the vectors of generation gen, or nil, starting a
// build when there are none.
func (ix *Index) vecSnapshot(ctx context.Context, gen string) *vecSnapshot {
	return ix.vecs.get(ctx, gen, ix.countChunks, ix.log)
}

// readVecs reads the generation and every vector with its chunk's access
// level in one repeatable-read transaction.
func (ix *Index) readVecs(ctx context.Context) (_ *vecSnapshot, gen string, err error) {
	gen = "?"
	tx, err := ix.h.Pool().BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, gen, ix.explain("load the lore vectors", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var count int
	if err := tx.QueryRow(ctx, `SELECT coalesce((SELECT value FROM lore_meta WHERE key = 'generation'), ''),
		(SELECT count(*) FROM lore_vectors)`).Scan(&gen, &count); err != nil {
		return nil, "?", ix.explain("load the lore vectors", err)
	}
	dim := ix.emb.Dim()
	bd := memvec.NewBuilder(dim, count)
	rows, err := tx.Query(ctx, `SELECT v.chunk, c.access, v.vec, c.pack, c.content_type, c.corpus, c.location, c.faction
		FROM lore_vectors v JOIN lore_chunks c ON c.n = v.chunk ORDER BY v.chunk`)
	if err != nil {
		return nil, gen, ix.explain("load the lore vectors", err)
	}
	defer rows.Close()
	snap := &vecSnapshot{rows: make([]int64, 0, count)}
	var (
		n     int64
		level int16
		vec   []float32
		vals  [memtext.NumColumns]string
	)
	for rows.Next() {
		if err := rows.Scan(&n, &level, &vec, &vals[memtext.Pack], &vals[memtext.ContentType], &vals[memtext.Corpus],
			&vals[memtext.Location], &vals[memtext.Faction]); err != nil {
			return nil, gen, ix.explain("load the lore vectors", err)
		}
		if len(vec) != dim {
			// Not this embedder's: New re-embeds such rows; never
			// compare vectors of different spaces.
			continue
		}
		if err := bd.Add(n, int8(min(max(level, -128), 127)), vec); err != nil {
			return nil, gen, err
		}
		snap.rows = append(snap.rows, n)
		snap.cols.Add(int(level), vals)
	}
	if err := rows.Err(); err != nil {
		return nil, gen, ix.explain("load the lore vectors", err)
	}
	snap.set = bd.Build()
	return snap, gen, nil
}

// WaitVectors waits until the in-memory vectors serve the index as it
// now stands, building them if need be: for tools, tests and
// benchmarks. It returns the build's error when they cannot be built.
func (ix *Index) WaitVectors(ctx context.Context) error {
	if ix.emb == nil {
		return fmt.Errorf("the lore index has no embedder: there are no vectors to load")
	}
	return ix.waitBuilt(ctx, func(ctx context.Context, gen string) bool { return ix.vecSnapshot(ctx, gen) != nil },
		ix.vecs.state, fmt.Errorf("the in-memory vectors are turned off"))
}
