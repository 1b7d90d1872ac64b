package pgindex

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

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
// generation with the rows. Once built, a search that finds it stale
// brings it up to date from the change log (catchUpVecs: the chunks
// written since, for milliseconds) and reads it whole only when the log
// cannot say (trimmed, truncated, or too many changes). Until it is
// built, and while it is read whole, the pgvector (or SQL) search of
// Mode serves.

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
	if err := tx.QueryRow(ctx, `SELECT `+readGeneration+`,
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

// compactAt is how many changes the vectors take as a delta before the
// next catch-up reads them whole, as on SQLite: the extra slab and the
// dead bits cost a little on every search, and the extra slab is copied
// on every catch-up.
func compactAt(base int) int { return 256 + base/16 }

// catchUpVecs brings old, the vectors of generation oldGen, up to the
// current generation from lore_changes (migration 0002), in one
// repeatable-read transaction that reads the generation, the log and the
// changed rows: each changed chunk's slot goes dead and its vector, if it
// still has one, joins the extra slab (memvec.Set.Apply). ok is false,
// and the caller reads everything, when the log does not reach back to
// oldGen (trimmed, or the database restored from an older copy), holds a
// TRUNCATE, or names more changes than compactAt allows.
func (ix *Index) catchUpVecs(ctx context.Context, old *vecSnapshot, oldGen string) (_ *vecSnapshot, gen string, ok bool, err error) {
	tx, from, to, gen, ok, err := ix.beginCatchUp(ctx, oldGen, "catch up with the lore vectors",
		func(changed int) bool { return old.set.Changed()+changed <= compactAt(old.set.BaseLen()) })
	if tx == nil {
		if ok {
			return old, gen, true, nil
		}
		return nil, "", false, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	rows, err := tx.Query(ctx, `SELECT l.chunk, c.access, v.vec, c.pack, c.content_type, c.corpus, c.location, c.faction
		FROM (SELECT DISTINCT chunk FROM lore_changes WHERE gen > $1 AND gen <= $2) l
		LEFT JOIN lore_vectors v ON v.chunk = l.chunk
		LEFT JOIN lore_chunks c ON c.n = l.chunk
		ORDER BY l.chunk`, from, to)
	if err != nil {
		return nil, "", false, ix.explain("catch up with the lore vectors", err)
	}
	defer rows.Close()
	type added struct {
		n     int64
		level int16
		vals  [memtext.NumColumns]string
	}
	var (
		changes = map[int64]memvec.Change{}
		adds    []added // ascending
		n       int64
		level   *int16
		vec     []float32
		vals    [memtext.NumColumns]*string
	)
	dim := old.set.Dim()
	for rows.Next() {
		if err := rows.Scan(&n, &level, &vec, &vals[memtext.Pack], &vals[memtext.ContentType], &vals[memtext.Corpus],
			&vals[memtext.Location], &vals[memtext.Faction]); err != nil {
			return nil, "", false, ix.explain("catch up with the lore vectors", err)
		}
		var c memvec.Change
		if level != nil && len(vec) == dim {
			c = memvec.Change{Access: int8(min(max(*level, -128), 127)), Vec: slices.Clone(vec)}
			a := added{n: n, level: *level}
			for i, v := range vals {
				if v != nil {
					a.vals[i] = *v
				}
			}
			adds = append(adds, a)
		}
		changes[n] = c
	}
	if err := rows.Err(); err != nil {
		return nil, "", false, ix.explain("catch up with the lore vectors", err)
	}
	// The rows with a vector, ascending, and their columns: the old ones
	// not changed, merged with the changed ones that still have one.
	snap := &vecSnapshot{set: old.set.Apply(changes), rows: make([]int64, 0, len(old.rows)+len(adds))}
	snap.cols = old.cols.Derive(cap(snap.rows))
	i, j := 0, 0
	for i < len(old.rows) || j < len(adds) {
		if j == len(adds) || i < len(old.rows) && old.rows[i] < adds[j].n {
			if _, gone := changes[old.rows[i]]; !gone {
				snap.rows = append(snap.rows, old.rows[i])
				snap.cols.AppendFrom(&old.cols, i)
			}
			i++
			continue
		}
		snap.rows = append(snap.rows, adds[j].n)
		snap.cols.Add(int(adds[j].level), adds[j].vals)
		j++
	}
	return snap, gen, true, nil
}

// beginCatchUp begins a catch-up from generation oldGen: a repeatable-read
// transaction whose snapshot reads the generation (gen, to) and the log
// since oldGen (from) alike, so the changed rows it then reads are those
// of generation gen. fits says whether so many changed chunks are worth
// applying. tx is nil when there is nothing to read: ok says whether
// nothing changed (gen is oldGen) or the log cannot say (trimmed past
// oldGen, a TRUNCATE, the database restored from an older copy, or more
// changes than fit) and the caller reads everything.
//
// The log continues what the caller holds only if generation from is
// still the write it applied: lore_stamps must give it oldGen's stamp.
// A schema restored from an older copy and written to since has counted
// up to from again with other stamps, and its log's entries up to from
// are other writes than the caller's.
func (ix *Index) beginCatchUp(ctx context.Context, oldGen, what string, fits func(changed int) bool) (tx pgx.Tx, from, to int64, gen string, ok bool, err error) {
	from, held, stamped, err := parseGen(oldGen)
	if err != nil || !stamped && oldGen != "" {
		return nil, 0, 0, "", false, nil // no stamp to check: read everything
	}
	tx, err = ix.h.Pool().BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, 0, 0, "", false, ix.explain(what, err)
	}
	var (
		start     string
		changed   int
		truncated bool
		stamp     *int64
	)
	err = tx.QueryRow(ctx, `SELECT `+readGeneration+`,
		coalesce((SELECT value FROM lore_meta WHERE key = 'changes_from'), ''),
		(SELECT count(DISTINCT chunk) FROM lore_changes WHERE gen > $1),
		coalesce((SELECT bool_or(chunk IS NULL) FROM lore_changes WHERE gen > $1), false),
		(SELECT stamp FROM lore_stamps WHERE gen = $1)`, from).
		Scan(&gen, &start, &changed, &truncated, &stamp)
	if err != nil {
		tx.Rollback(context.WithoutCancel(ctx))
		return nil, 0, 0, "", false, ix.explain(what, err)
	}
	to, _, _, err1 := parseGen(gen)
	first, _, _, err2 := parseGen(start)
	// oldGen "" is the index before any write: every log reaches back to it.
	same := oldGen == "" || stamp != nil && *stamp == held
	if !same && err1 == nil && err2 == nil && from >= first && to >= from {
		ix.log.Info("lore index: the change log does not continue the generation this server holds (was the database restored from a copy?); reading everything again",
			"doing", what, "held", oldGen, "now", gen)
	}
	ok = to == from && same
	if !same || err1 != nil || err2 != nil || truncated || from < first || to <= from || !fits(changed) {
		tx.Rollback(context.WithoutCancel(ctx))
		return nil, 0, 0, gen, ok && err1 == nil && err2 == nil && !truncated && from >= first, nil
	}
	return tx, from, to, gen, true, nil
}

// parseGen reads a generation, "counter.stamp" (readGeneration); the
// empty one (no write yet) is 0. stamped is false when it has no stamp.
func parseGen(g string) (counter, stamp int64, stamped bool, err error) {
	if g == "" {
		return 0, 0, false, nil
	}
	c, s, stamped := strings.Cut(g, ".")
	if counter, err = strconv.ParseInt(c, 10, 64); err != nil {
		return 0, 0, false, err
	}
	if stamped {
		if stamp, err = strconv.ParseInt(s, 10, 64); err != nil {
			return 0, 0, false, err
		}
	}
	return counter, stamp, stamped, nil
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
