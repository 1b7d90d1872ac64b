package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/hearth-rpg/hearth/embed"
)

// vectorCache holds every stored vector in one slab, so an exact scan
// walks memory in order. It is immutable once loaded.
type vectorCache struct {
	gen    uint64
	dim    int
	rows   []int64 // lore_chunks.n of each slot, ascending
	access []int8  // the chunk's access level, checked on every scan
	data   []float32
	slot   map[int64]int32
}

func (vc *vectorCache) vec(i int) []float32 {
	return vc.data[i*vc.dim : (i+1)*vc.dim : (i+1)*vc.dim]
}

// vectors returns the cache for the current generation, loading it if a
// write has happened since it was last loaded.
func (ix *Index) vectors(ctx context.Context) (*vectorCache, error) {
	ix.vmu.Lock()
	defer ix.vmu.Unlock()
	gen := ix.gen.Load()
	if ix.vecs != nil && ix.vecs.gen == gen {
		return ix.vecs, nil
	}
	ix.vecs = nil // let the old slab go before the new one is read
	vc, err := ix.loadVectors(ctx, gen)
	if err != nil {
		return nil, err
	}
	ix.vecs = vc
	return vc, nil
}

func (ix *Index) loadVectors(ctx context.Context, gen uint64) (*vectorCache, error) {
	dim := ix.emb.Dim()
	var count int
	if err := ix.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM lore_vectors`).Scan(&count); err != nil {
		return nil, ix.explain("load the lore vectors", err)
	}
	vc := &vectorCache{
		gen:    gen,
		dim:    dim,
		rows:   make([]int64, 0, count),
		access: make([]int8, 0, count),
		data:   make([]float32, 0, count*dim),
		slot:   make(map[int64]int32, count),
	}
	rows, err := ix.r.QueryContext(ctx, `SELECT v.chunk, c.access, v.vec FROM lore_vectors v
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
		var err error
		if vc.data, err = embed.Decode(vc.data, blob); err != nil {
			return nil, fmt.Errorf("load the lore vector of row %d: %w", n, err)
		}
		vc.slot[n] = int32(len(vc.rows))
		vc.rows = append(vc.rows, n)
		vc.access = append(vc.access, int8(acc))
	}
	if err := rows.Err(); err != nil {
		return nil, ix.explain("load the lore vectors", err)
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
			i, ok := vc.slot[n]
			if ok && int(vc.access[i]) <= role {
				if s := embed.Dot(q, vc.vec(int(i))); s > 0 {
					h.offer(hit{n, s})
				}
			}
		}
		return h.sorted()
	}
	n := len(vc.rows)
	parts := 1
	if n >= parallelFrom {
		parts = min(runtime.GOMAXPROCS(0), n/(parallelFrom/2))
	}
	heaps := make([]topK, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		heaps[p].k = k
		wg.Go(func() {
			h := &heaps[p]
			for i := lo; i < hi; i++ {
				if int(vc.access[i]) <= role {
					if s := embed.Dot(q, vc.vec(i)); s > 0 {
						h.offer(hit{vc.rows[i], s})
					}
				}
			}
		})
	}
	wg.Wait()
	var all []hit
	for _, h := range heaps {
		all = append(all, h.hits...)
	}
	slices.SortFunc(all, better)
	return all[:min(k, len(all))]
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
				if _, err := st.ExecContext(ctx, n, embed.Encode(vecs[i])); err != nil {
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
