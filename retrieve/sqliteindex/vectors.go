package sqliteindex

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/retrieve/memvec"
)

// vectorCache is every stored vector as of one entry of lore_vector_log.
// Catching up builds a new one whose Set shares the base (memvec.Set.Apply).
// Once the changes outgrow compactAt, the next catch-up reloads everything
// into a new base.
type vectorCache struct {
	gen   string // the generation read with it
	seq   int64  // the last log entry reflected (0: none)
	stamp int64  // its stamp (migrations/0005)
	*memvec.Set
}

// compactAt is how many changes a cache takes as a delta before the next
// catch-up reloads it: the extra slab and the dead bits cost a little on
// every scan, and the extra slab is copied on every catch-up.
func compactAt(base int) int { return 256 + base/16 }

// vectors returns the cache as of the newest committed change, catching
// up from lore_vector_log when only a few vectors changed since it was
// built, and loading everything otherwise. The log is read in the same
// read transaction as the vectors, so the cache matches one snapshot.
// The log's entry the cache holds must still carry the stamp the cache
// read: if not, the file was restored from a copy and written to since,
// and the entries after it are not what happened after the cache.
func (ix *Index) vectors(ctx context.Context) (*vectorCache, error) {
	ix.vmu.Lock()
	defer ix.vmu.Unlock()
	tx, err := ix.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, ix.explain("load the lore vectors", err)
	}
	defer tx.Rollback()
	old := ix.vecs
	var held int64
	if old != nil {
		held = old.seq
	}
	var (
		gen                        sql.NullString
		last, first, stamp, newest sql.NullInt64
	)
	err = tx.QueryRowContext(ctx, `SELECT (SELECT value FROM lore_meta WHERE key = 'generation'),
		(SELECT MAX(seq) FROM lore_vector_log), (SELECT MIN(seq) FROM lore_vector_log),
		(SELECT stamp FROM lore_vector_log WHERE seq = ?), (SELECT stamp FROM lore_vector_log ORDER BY seq DESC LIMIT 1)`, held).
		Scan(&gen, &last, &first, &stamp, &newest)
	if err != nil {
		return nil, ix.explain("load the lore vectors", err)
	}
	if old != nil && old.gen == gen.String {
		return old, nil // no write since
	}
	// The entry the cache holds is still this file's history, not a
	// restored copy's (an emptied log holds none to check).
	same := old != nil && old.seq > 0 && stamp.Valid && stamp.Int64 == old.stamp
	if same && old.seq == last.Int64 {
		// Only chunks' other columns changed.
		vc := *old
		vc.gen = gen.String
		ix.vecs = &vc
		return ix.vecs, nil
	}
	if old != nil && !same && last.Int64 >= old.seq && first.Valid && first.Int64 <= old.seq {
		ix.log.Info("lore index: the vector change log does not continue what this process holds in memory (was the database restored from a copy?); loading the vectors whole",
			"entry", old.seq, "newest", last.Int64)
	}
	// Catch up only from an unbroken log: one trimmed past the cache, or
	// emptied and restarted, means a full load.
	if same && first.Valid && first.Int64 <= old.seq+1 && last.Int64 > old.seq {
		var changed int
		err := tx.QueryRowContext(ctx, `SELECT COUNT(DISTINCT chunk) FROM lore_vector_log WHERE seq > ? AND seq <= ?`,
			old.seq, last.Int64).Scan(&changed)
		if err != nil {
			return nil, ix.explain("load the lore vectors", err)
		}
		if old.Changed()+changed <= compactAt(old.BaseLen()) {
			vc, err := ix.catchUp(ctx, tx, old, last.Int64, newest.Int64)
			if err != nil {
				return nil, err
			}
			vc.gen = gen.String
			ix.vecs = vc
			return vc, nil
		}
	}
	ix.vecs = nil // let the old slab go before the new one is read
	vc, err := ix.loadVectors(ctx, tx, last.Int64, newest.Int64)
	if err != nil {
		return nil, err
	}
	vc.gen = gen.String
	ix.vecs = vc
	return vc, nil
}

// loadVectors reads every stored vector into a new cache at log entry
// seq, whose stamp is stamp.
func (ix *Index) loadVectors(ctx context.Context, tx *sql.Tx, seq, stamp int64) (*vectorCache, error) {
	dim := ix.emb.Dim()
	var count int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM lore_vectors`).Scan(&count); err != nil {
		return nil, ix.explain("load the lore vectors", err)
	}
	bd := memvec.NewBuilder(dim, count)
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
		if err := bd.AddEncoded(n, int8(acc), blob); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, ix.explain("load the lore vectors", err)
	}
	return &vectorCache{seq: seq, stamp: stamp, Set: bd.Build()}, nil
}

// catchUp builds the cache at log entry seq (stamped stamp) from old and
// the chunks logged since: each one's slot in old goes dead, and its
// vector, if it still has one, joins the extra slab.
func (ix *Index) catchUp(ctx context.Context, tx *sql.Tx, old *vectorCache, seq, stamp int64) (*vectorCache, error) {
	rows, err := tx.QueryContext(ctx, `SELECT l.chunk, c.access, v.vec
		FROM (SELECT DISTINCT chunk FROM lore_vector_log WHERE seq > ? AND seq <= ?) l
		LEFT JOIN lore_vectors v ON v.chunk = l.chunk
		LEFT JOIN lore_chunks c ON c.n = l.chunk
		ORDER BY l.chunk`, old.seq, seq)
	if err != nil {
		return nil, ix.explain("catch up with the lore vectors", err)
	}
	defer rows.Close()
	changes := map[int64]memvec.Change{}
	var blob []byte
	for rows.Next() {
		var n int64
		var acc sql.NullInt64
		if err := rows.Scan(&n, &acc, &blob); err != nil {
			return nil, ix.explain("catch up with the lore vectors", err)
		}
		var c memvec.Change
		if acc.Valid && len(blob) == 4*old.Dim() {
			if c.Vec, err = embedding.Decode(nil, blob); err != nil {
				return nil, fmt.Errorf("load the lore vector of row %d: %w", n, err)
			}
			c.Access = int8(acc.Int64)
		}
		changes[n] = c
	}
	if err := rows.Err(); err != nil {
		return nil, ix.explain("catch up with the lore vectors", err)
	}

	return &vectorCache{seq: seq, stamp: stamp, Set: old.Apply(changes)}, nil
}

// hit is a ranked row.
type hit struct {
	n     int64
	score float32
}

// hitsOf converts memvec's hits.
func hitsOf(hs []memvec.Hit) []hit {
	out := make([]hit, len(hs))
	for i, h := range hs {
		out[i] = hit{h.Row, h.Score}
	}
	return out
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
