package pgindex

import (
	"context"
	"fmt"
	"sync"
	"time"

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

type memVecs struct {
	mu       sync.Mutex
	snap     *vecSnapshot
	building bool
	failed   error
	failedAt string // the generation a build failed at: not tried again there
	off      bool   // WithoutMemVectors, or a test: the database searches

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	pool   sync.Pool // memvec's search buffers
}

type vecSnapshot struct {
	gen  string
	set  *memvec.Set
	rows []int64         // the rows with a vector, ascending
	cols memtext.Columns // their access levels and filter columns
}

func (m *memVecs) start() { m.ctx, m.cancel = context.WithCancel(context.Background()) }

func (m *memVecs) close() {
	if m.cancel != nil {
		m.cancel()
	}
	m.wg.Wait()
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
	found := snap.set.Search(q, role, k, allowed, ix.cands, &ix.vecs.pool)
	hits := make([]hit, len(found))
	for i, h := range found {
		hits[i] = hit{n: h.Row, score: float64(h.Score)}
	}
	return hits, true, true, nil
}

// vecSnapshot returns the vectors of generation gen, or nil, starting a
// build when there are none: at once for a small index (memSyncRows
// chunks or fewer), so its searches do not change with a build's timing;
// in the background for a larger one.
func (ix *Index) vecSnapshot(ctx context.Context, gen string) *vecSnapshot {
	m := &ix.vecs
	m.mu.Lock()
	if !m.off && m.snap != nil && m.snap.gen == gen {
		snap := m.snap
		m.mu.Unlock()
		return snap
	}
	if m.off || m.failed != nil && m.failedAt == gen || m.building || m.ctx == nil || m.ctx.Err() != nil {
		m.mu.Unlock()
		return nil
	}
	m.building = true
	m.wg.Add(1)
	size := -1
	if m.snap != nil {
		size = m.snap.set.Len()
		// Stale: no search uses it again, so let it go before the new
		// vectors are read rather than hold both.
		m.snap = nil
	}
	m.mu.Unlock()
	if size < 0 {
		size = ix.countChunks(ctx)
	}
	if size > memSyncRows {
		go ix.buildVecs()
		return nil
	}
	ix.buildVecs()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.snap != nil && m.snap.gen == gen {
		return m.snap
	}
	return nil
}

func (ix *Index) buildVecs() {
	m := &ix.vecs
	defer m.wg.Done()
	start := time.Now()
	snap, gen, err := ix.readVecs(m.ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.building = false
	if err != nil {
		m.failed, m.failedAt = err, gen
		ix.log.Warn("lore index: in-memory vectors not built; "+ix.VectorSearch()+" serves", "err", err)
		return
	}
	m.failed = nil
	m.snap = snap
	ix.log.Info("lore index: in-memory vectors built", "vectors", snap.set.Len(), "dim", snap.set.Dim(),
		"took", time.Since(start).Round(time.Millisecond))
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
	snap := &vecSnapshot{gen: gen, rows: make([]int64, 0, count)}
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
	for {
		gen, err := ix.generation(ctx)
		if err != nil {
			return err
		}
		if ix.vecSnapshot(ctx, gen) != nil {
			return nil
		}
		ix.vecs.mu.Lock()
		off, failed := ix.vecs.off, ix.vecs.failed
		ix.vecs.mu.Unlock()
		if off {
			return fmt.Errorf("the in-memory vectors are turned off")
		}
		if failed != nil {
			return failed
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
