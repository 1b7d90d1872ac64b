package sqliteindex

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/vecmath"
)

// slab holds vectors in one block of memory, so an exact scan walks it in
// order.
type slab struct {
	rows   []int64 // lore_chunks.n of each slot, ascending
	access []int8  // the chunk's access level, checked on every scan
	data   []float32
	slot   map[int64]int32
	// cols is every vector again, column by column (dimension d of slot
	// r at cols[d*len(rows)+r]), each value scaled by scale to an int8:
	// the approximate search's estimate reads only the columns of the
	// query's largest dimensions. Only the base slab has them (see
	// index); the few vectors in extra are always scored exactly.
	cols  []int8
	scale float32
}

func (s *slab) vec(i, dim int) []float32 {
	return s.data[i*dim : (i+1)*dim : (i+1)*dim]
}

func (s *slab) add(n int64, acc int8, v []float32) {
	if s.slot == nil {
		s.slot = map[int64]int32{}
	}
	s.slot[n] = int32(len(s.rows))
	s.rows = append(s.rows, n)
	s.access = append(s.access, acc)
	s.data = append(s.data, v...)
}

// index builds s.cols from s.data, once every vector has been added.
func (s *slab) index(dim int) {
	var m float32
	for _, x := range s.data {
		m = max(m, x, -x)
	}
	s.scale = 1
	if m > 0 {
		s.scale = 127 / m
	}
	n := len(s.rows)
	s.cols = make([]int8, n*dim)
	for r := range n {
		for d, x := range s.data[r*dim : (r+1)*dim] {
			s.cols[d*n+r] = int8(math.Round(float64(x * s.scale)))
		}
	}
}

// vectorCache is every stored vector as of one entry of lore_vector_log:
// a base slab loaded in full, the base slots changed since (dead), and
// the vectors stored since (extra). It is immutable: catching up builds a
// new one that shares the base. Once the changes outgrow compactAt, the
// next catch-up reloads everything into a new base.
type vectorCache struct {
	seq   int64 // the last log entry reflected
	dim   int
	base  slab
	dead  []uint64 // bit per base slot
	ndead int
	extra slab
}

func (vc *vectorCache) len() int { return len(vc.base.rows) - vc.ndead + len(vc.extra.rows) }

func (vc *vectorCache) isDead(i int) bool {
	return vc.dead != nil && vc.dead[i/64]&(1<<(i%64)) != 0
}

// compactAt is how many changes a cache takes as a delta before the next
// catch-up reloads it: the extra slab and the dead bits cost a little on
// every scan, and the extra slab is copied on every catch-up.
func compactAt(base int) int { return 256 + base/16 }

// vectors returns the cache as of the newest committed change, catching
// up from lore_vector_log when only a few vectors changed since it was
// built, and loading everything otherwise. The log is read in the same
// read transaction as the vectors, so the cache matches one snapshot.
func (ix *Index) vectors(ctx context.Context) (*vectorCache, error) {
	ix.vmu.Lock()
	defer ix.vmu.Unlock()
	tx, err := ix.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, ix.explain("load the lore vectors", err)
	}
	defer tx.Rollback()
	var last, first sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT (SELECT MAX(seq) FROM lore_vector_log), (SELECT MIN(seq) FROM lore_vector_log)`).Scan(&last, &first)
	if err != nil {
		return nil, ix.explain("load the lore vectors", err)
	}
	old := ix.vecs
	if old != nil && old.seq == last.Int64 {
		return old, nil
	}
	// Catch up only from an unbroken log: one trimmed past the cache, or
	// emptied and restarted, means a full load.
	if old != nil && first.Valid && first.Int64 <= old.seq+1 && last.Int64 > old.seq {
		var changed int
		err := tx.QueryRowContext(ctx, `SELECT COUNT(DISTINCT chunk) FROM lore_vector_log WHERE seq > ? AND seq <= ?`,
			old.seq, last.Int64).Scan(&changed)
		if err != nil {
			return nil, ix.explain("load the lore vectors", err)
		}
		if old.ndead+len(old.extra.rows)+changed <= compactAt(len(old.base.rows)) {
			vc, err := ix.catchUp(ctx, tx, old, last.Int64)
			if err != nil {
				return nil, err
			}
			ix.vecs = vc
			return vc, nil
		}
	}
	ix.vecs = nil // let the old slab go before the new one is read
	vc, err := ix.loadVectors(ctx, tx, last.Int64)
	if err != nil {
		return nil, err
	}
	ix.vecs = vc
	return vc, nil
}

// loadVectors reads every stored vector into a new cache at log entry seq.
func (ix *Index) loadVectors(ctx context.Context, tx *sql.Tx, seq int64) (*vectorCache, error) {
	dim := ix.emb.Dim()
	var count int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM lore_vectors`).Scan(&count); err != nil {
		return nil, ix.explain("load the lore vectors", err)
	}
	vc := &vectorCache{
		seq: seq,
		dim: dim,
		base: slab{
			rows:   make([]int64, 0, count),
			access: make([]int8, 0, count),
			data:   make([]float32, 0, count*dim),
			slot:   make(map[int64]int32, count),
		},
	}
	rows, err := tx.QueryContext(ctx, `SELECT v.chunk, c.access, v.vec FROM lore_vectors v
		JOIN lore_chunks c ON c.n = v.chunk ORDER BY v.chunk`)
	if err != nil {
		return nil, ix.explain("load the lore vectors", err)
	}
	defer rows.Close()
	var blob []byte
	for rows.Next() {
		var n int64
		var acc int
		if err := rows.Scan(&n, &acc, &blob); err != nil {
			return nil, ix.explain("load the lore vectors", err)
		}
		if len(blob) != 4*dim {
			// Not this embedder's: Open re-embeds such rows; never
			// compare vectors of different spaces.
			continue
		}
		b := &vc.base
		var err error
		if b.data, err = embedding.Decode(b.data, blob); err != nil {
			return nil, fmt.Errorf("load the lore vector of row %d: %w", n, err)
		}
		b.slot[n] = int32(len(b.rows))
		b.rows = append(b.rows, n)
		b.access = append(b.access, int8(acc))
	}
	if err := rows.Err(); err != nil {
		return nil, ix.explain("load the lore vectors", err)
	}
	vc.base.index(dim)
	return vc, nil
}

// catchUp builds the cache at log entry seq from old and the chunks
// logged since: each one's slot in old goes dead, and its vector, if it
// still has one, joins the extra slab.
func (ix *Index) catchUp(ctx context.Context, tx *sql.Tx, old *vectorCache, seq int64) (*vectorCache, error) {
	rows, err := tx.QueryContext(ctx, `SELECT l.chunk, c.access, v.vec
		FROM (SELECT DISTINCT chunk FROM lore_vector_log WHERE seq > ? AND seq <= ?) l
		LEFT JOIN lore_vectors v ON v.chunk = l.chunk
		LEFT JOIN lore_chunks c ON c.n = l.chunk
		ORDER BY l.chunk`, old.seq, seq)
	if err != nil {
		return nil, ix.explain("catch up with the lore vectors", err)
	}
	defer rows.Close()
	type change struct {
		acc int8
		vec []float32 // nil: gone
	}
	changes := map[int64]change{}
	var blob []byte
	for rows.Next() {
		var n int64
		var acc sql.NullInt64
		if err := rows.Scan(&n, &acc, &blob); err != nil {
			return nil, ix.explain("catch up with the lore vectors", err)
		}
		var c change
		if acc.Valid && len(blob) == 4*old.dim {
			if c.vec, err = embedding.Decode(nil, blob); err != nil {
				return nil, fmt.Errorf("load the lore vector of row %d: %w", n, err)
			}
			c.acc = int8(acc.Int64)
		}
		changes[n] = c
	}
	if err := rows.Err(); err != nil {
		return nil, ix.explain("catch up with the lore vectors", err)
	}

	vc := &vectorCache{seq: seq, dim: old.dim, base: old.base, ndead: old.ndead}
	vc.dead = slices.Clone(old.dead)
	for n := range changes {
		i, ok := old.base.slot[n]
		if !ok || old.isDead(int(i)) {
			continue
		}
		if vc.dead == nil {
			vc.dead = make([]uint64, (len(old.base.rows)+63)/64)
		}
		vc.dead[i/64] |= 1 << (i % 64)
		vc.ndead++
	}
	for i, n := range old.extra.rows {
		if _, ok := changes[n]; !ok {
			vc.extra.add(n, old.extra.access[i], old.extra.vec(i, old.dim))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(changes)) {
		if c := changes[n]; c.vec != nil {
			vc.extra.add(n, c.acc, c.vec)
		}
	}
	return vc, nil
}

type hit struct {
	n     int64
	score float32
}

// better orders hits best first, ties by row, so the top k are the same
// however the scan was split.
func better(a, b hit) int {
	return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.n, b.n))
}

// parallelFrom is the number of vectors above which a scan is split
// across the CPUs; below it, starting goroutines costs more than it saves.
const parallelFrom = 16384

// scan returns the k vectors most similar to q among those the role may
// read: every stored vector when allowed is nil, else only the rows in
// allowed (which the caller selected with the role already applied).
// Vectors at a right angle to q or further (similarity ≤ 0) share nothing
// with it and are left out.
func (vc *vectorCache) scan(q []float32, role, k int, allowed []int64) []hit {
	if k <= 0 || len(q) != vc.dim {
		return nil
	}
	if allowed != nil {
		h := topK{k: k}
		for _, n := range allowed {
			if i, ok := vc.extra.slot[n]; ok {
				vc.offer(&h, &vc.extra, int(i), q, role)
			} else if i, ok := vc.base.slot[n]; ok && !vc.isDead(int(i)) {
				vc.offer(&h, &vc.base, int(i), q, role)
			}
		}
		return h.sorted()
	}
	n := len(vc.base.rows)
	parts := 1
	if n >= parallelFrom {
		parts = min(runtime.GOMAXPROCS(0), n/(parallelFrom/2))
	}
	heaps := make([]topK, parts+1)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		heaps[p].k = k
		wg.Go(func() { vc.scanRange(&heaps[p], &vc.base, vc.dead, lo, hi, q, role) })
	}
	heaps[parts].k = k
	vc.scanRange(&heaps[parts], &vc.extra, nil, 0, len(vc.extra.rows), q, role)
	wg.Wait()
	var all []hit
	for _, h := range heaps {
		all = append(all, h.hits...)
	}
	slices.SortFunc(all, better)
	return all[:min(k, len(all))]
}

// scanBlock is how many slots scanRange scores at a time: their scores
// fit in a small buffer on the stack.
const scanBlock = 64

// scanRange offers slots lo to hi of s, skipping those marked in dead.
// It is the hot loop of every vector search: it scores the slots a block
// at a time with vecmath.DotRows (eight rows at once, the same bits as
// embedding.Dot row by row), then offers those the role may read. A block
// with no readable slot is not scored.
func (vc *vectorCache) scanRange(h *topK, s *slab, dead []uint64, lo, hi int, q []float32, role int) {
	dim, acc, rows := vc.dim, s.access, s.rows
	var sims [scanBlock]float32
	for b := lo; b < hi; b += scanBlock {
		e := min(b+scanBlock, hi)
		readable := false
		for i := b; i < e && !readable; i++ {
			readable = int(acc[i]) <= role && (dead == nil || dead[uint(i)/64]&(1<<(uint(i)%64)) == 0)
		}
		if !readable {
			continue
		}
		vecmath.DotRows(sims[:e-b], q, s.data[b*dim:e*dim])
		for i := b; i < e; i++ {
			if int(acc[i]) > role || dead != nil && dead[uint(i)/64]&(1<<(uint(i)%64)) != 0 {
				continue
			}
			if sim := sims[i-b]; sim > 0 {
				h.offer(hit{rows[i], sim})
			}
		}
	}
}

// offer scores slot i of s against q when the role may read it.
func (vc *vectorCache) offer(h *topK, s *slab, i int, q []float32, role int) {
	if int(s.access[i]) <= role {
		if sim := embedding.Dot(q, s.vec(i, vc.dim)); sim > 0 {
			h.offer(hit{s.rows[i], sim})
		}
	}
}

// topK keeps the k best hits seen, in a heap with the worst at the root.
type topK struct {
	k    int
	hits []hit
}

func (h *topK) offer(x hit) {
	if len(h.hits) < h.k {
		h.hits = append(h.hits, x)
		for i := len(h.hits) - 1; i > 0; {
			p := (i - 1) / 2
			if better(h.hits[i], h.hits[p]) <= 0 {
				break
			}
			h.hits[i], h.hits[p] = h.hits[p], h.hits[i]
			i = p
		}
		return
	}
	if better(x, h.hits[0]) >= 0 {
		return
	}
	h.hits[0] = x
	for i := 0; ; {
		l, r, worst := 2*i+1, 2*i+2, i
		if l < len(h.hits) && better(h.hits[l], h.hits[worst]) > 0 {
			worst = l
		}
		if r < len(h.hits) && better(h.hits[r], h.hits[worst]) > 0 {
			worst = r
		}
		if worst == i {
			return
		}
		h.hits[i], h.hits[worst] = h.hits[worst], h.hits[i]
		i = worst
	}
}

func (h *topK) sorted() []hit {
	slices.SortFunc(h.hits, better)
	return h.hits
}

// reembedBatch is how many chunks Open embeds per transaction when
// filling in missing vectors.
const reembedBatch = 256

// syncEmbeddings makes the stored vectors match the configured embedder:
// when its name or dimension differs from the stored one, every vector is
// dropped; then every chunk without a vector is embedded.
func (ix *Index) syncEmbeddings(ctx context.Context) error {
	if ix.emb == nil {
		return nil
	}
	name, dim := ix.emb.Name(), strconv.Itoa(ix.emb.Dim())
	var haveName, haveDim sql.NullString
	err := ix.w.QueryRowContext(ctx, `SELECT
		(SELECT value FROM lore_meta WHERE key = 'embedder'),
		(SELECT value FROM lore_meta WHERE key = 'dim')`).Scan(&haveName, &haveDim)
	if err != nil {
		return ix.explain("read the lore embedder", err)
	}
	if haveName.String != name || haveDim.String != dim {
		err := ix.write(ctx, "switch the lore index to embedder "+name, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `DELETE FROM lore_vectors`); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO lore_meta (key, value) VALUES ('embedder', ?), ('dim', ?)`, name, dim)
			return err
		})
		if err != nil {
			return err
		}
	}
	for {
		ns, texts, err := ix.unembedded(ctx)
		if err != nil {
			return err
		}
		if len(ns) == 0 {
			return nil
		}
		vecs, err := ix.emb.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embed the lore index with %s: %w", name, err)
		}
		if len(vecs) != len(texts) {
			return fmt.Errorf("embed the lore index with %s: got %d vectors for %d texts", name, len(vecs), len(texts))
		}
		err = ix.write(ctx, "store lore vectors", func(tx *sql.Tx) error {
			st := tx.StmtContext(ctx, ix.insVec)
			for i, n := range ns {
				if len(vecs[i]) != ix.emb.Dim() {
					return fmt.Errorf("embedder %s returned %d dimensions, want %d", name, len(vecs[i]), ix.emb.Dim())
				}
				if _, err := st.ExecContext(ctx, n, embedding.Encode(vecs[i])); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
}

// unembedded returns a batch of chunks that have no vector.
func (ix *Index) unembedded(ctx context.Context) ([]int64, []string, error) {
	rows, err := ix.w.QueryContext(ctx, `SELECT n, heading, text FROM lore_chunks
		WHERE n NOT IN (SELECT chunk FROM lore_vectors) ORDER BY n LIMIT ?`, reembedBatch)
	if err != nil {
		return nil, nil, ix.explain("find chunks to embed", err)
	}
	defer rows.Close()
	var ns []int64
	var texts []string
	for rows.Next() {
		var n int64
		var heading, text string
		if err := rows.Scan(&n, &heading, &text); err != nil {
			return nil, nil, ix.explain("find chunks to embed", err)
		}
		ns = append(ns, n)
		texts = append(texts, embedText(heading, text))
	}
	return ns, texts, rows.Err()
}
