package sqliteindex

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/bm25"
	"github.com/hearth-rpg/hearth/retrieve/memtext"
)

// Full text in memory. FTS5 scores every row a query matches, and over
// 100,000 chunks of real prose a question's words match most of them
// (a BM25 in C at a few µs a row: hundreds of ms). The index also keeps
// its full text in a retrieve/bm25 index, built from lore_chunks in the
// background, which ranks exactly as FTS5's bm25(3.0, 1.0, 2.0) but
// scores only the rows that can reach the top k.
//
// It serves a search only when it was built at the generation the
// search reads (migrations/0003): any write, by this process or
// another, makes it stale, FTS5 serves as before, and the next search
// starts a rebuild in the background; New starts the first. A build
// checks its token counts row by row against FTS5's own (lore_fts_docsize):
// if the tokenizers ever disagree, the memory index is not used.

// memText holds the newest built snapshot and the state of a build.
type memText struct {
	mu       sync.Mutex
	snap     *memSnapshot
	building bool
	failed   error // the last build's error, kept until one succeeds
	failedAt int64 // the generation it failed at: not tried again there
	stats    memStats

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// memSnapshot is the full text of one generation of the index.
type memSnapshot struct {
	gen  int64
	ix   *bm25.Index
	cols memtext.Columns // access level and filter columns per document
}

// memFilter is filter.go's condition over a snapshot's columns: the
// fields held per document are tested in Go; the set-valued ones
// (entities, threads, tags) are asked of SQL, which gives a handful of
// rows for them.
func (ix *Index) memFilter(ctx context.Context, snap *memSnapshot, role int, f retrieve.Filter) (func(d int) bool, error) {
	var allowed []int64 // ascending
	keys := memtext.Keyed(f)
	if !keys.IsZero() {
		cond, args := where(keys)
		rows, err := ix.rowSet(ctx, role, cond, args)
		if err != nil {
			return nil, err
		}
		allowed = rows
	}
	return snap.cols.Accept(role, f, snap.ix.Rows(), !keys.IsZero(), allowed), nil
}

// bytes estimates the snapshot's memory.
func (s *memSnapshot) bytes() int64 { return s.ix.Bytes() + s.cols.Bytes() }

// memStats describes the last build, for benchmarks and tests.
type memStats struct {
	Docs, Terms     int
	Postings, Bytes int64
	Build           time.Duration
}

func (m *memText) start() {
	m.ctx, m.cancel = context.WithCancel(context.Background())
}

func (m *memText) close() {
	if m.cancel != nil {
		m.cancel()
	}
	m.wg.Wait()
}

// memSearch ranks text's terms over the memory index, applying the role
// and filter to each candidate before it is scored. ok is false when the
// memory index cannot answer for generation gen (not built, stale, or a
// term that is not one token), and the caller asks FTS5.
func (ix *Index) memSearch(ctx context.Context, gen int64, text string, role int, f retrieve.Filter, k int) (_ []hit, ok bool, _ error) {
	found, ok, err := ix.memRank(ctx, gen, text, role, f, k)
	if !ok || err != nil {
		return nil, ok, err
	}
	hits := make([]hit, len(found))
	for i, h := range found {
		hits[i] = hit{n: h.Row, score: float32(h.Score)}
	}
	return hits, true, nil
}

// memRank is memSearch with BM25's own scores.
func (ix *Index) memRank(ctx context.Context, gen int64, text string, role int, f retrieve.Filter, k int) (_ []bm25.Hit, ok bool, _ error) {
	snap := ix.memSnapshot(ctx, gen)
	if snap == nil {
		return nil, false, nil
	}
	var terms []string
	for _, w := range retrieve.Terms(text) {
		toks := bm25.Tokens(w)
		if len(toks) != 1 {
			return nil, false, nil // a phrase or nothing: FTS5's own reading
		}
		terms = append(terms, toks[0])
	}
	if len(terms) == 0 {
		return nil, false, nil
	}
	accept, err := ix.memFilter(ctx, snap, role, f)
	if err != nil {
		return nil, false, err
	}
	return snap.ix.Search(terms, k, accept), true, nil
}

// memSnapshot returns the snapshot of generation gen, or nil, starting a
// build in the background when there is none. FTS5 serves meanwhile,
// with the same scores, so a search does not wait for a build (the first
// scene of a game is searched while the index is still being built).
func (ix *Index) memSnapshot(ctx context.Context, gen int64) *memSnapshot {
	m := &ix.mem
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.snap != nil && m.snap.gen == gen {
		return m.snap
	}
	if m.failed != nil && m.failedAt == gen || m.building || m.ctx == nil || m.ctx.Err() != nil {
		return nil
	}
	m.building = true
	m.wg.Add(1)
	go ix.buildMem()
	return nil
}

func (ix *Index) buildMem() {
	m := &ix.mem
	defer m.wg.Done()
	start := time.Now()
	snap, gen, err := ix.readMem(m.ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.building = false
	if err != nil {
		m.failed, m.failedAt = err, gen
		return
	}
	m.failed = nil
	if m.snap == nil || snap.gen >= m.snap.gen {
		m.snap = snap
		m.stats = memStats{Docs: snap.ix.Docs(), Terms: snap.ix.Terms(), Postings: snap.ix.Postings(),
			Bytes: snap.bytes(), Build: time.Since(start)}
	}
}

// WaitFullText waits until the in-memory full text serves the index as
// it now stands, building it if need be: for tools, tests and
// benchmarks that must measure it rather than FTS5. It returns the
// build's error when it cannot be built (FTS5 then serves).
func (ix *Index) WaitFullText(ctx context.Context) error { return ix.waitMem(ctx) }

// waitMem is WaitFullText.
func (ix *Index) waitMem(ctx context.Context) error {
	for {
		gen, err := ix.generation(ctx)
		if err != nil {
			return err
		}
		if ix.memSnapshot(ctx, gen) != nil {
			return nil
		}
		ix.mem.mu.Lock()
		failed := ix.mem.failed
		ix.mem.mu.Unlock()
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

// readMem reads every chunk's full-text columns in one read transaction,
// so the snapshot and its generation agree, and builds the index.
// gen is the generation read (-1 when even that failed).
func (ix *Index) readMem(ctx context.Context) (_ *memSnapshot, gen int64, _ error) {
	snap, gen, err := ix.readMemAt(ctx)
	if err != nil {
		err = fmt.Errorf("%w (full text is served by FTS5 instead)", err)
	}
	return snap, gen, err
}

func (ix *Index) readMemAt(ctx context.Context) (_ *memSnapshot, gen int64, _ error) {
	gen = -1
	tx, err := ix.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, gen, ix.explain("build the in-memory full text", err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM lore_meta WHERE key = 'generation'`).Scan(&gen); err != nil {
		return nil, -1, ix.explain("build the in-memory full text", err)
	}
	bd, err := memtext.NewBuilder()
	if err != nil {
		return nil, gen, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT n, heading, text, tags, access, pack, content_type, corpus, location, faction FROM lore_chunks ORDER BY n`)
	if err != nil {
		return nil, gen, ix.explain("build the in-memory full text", err)
	}
	defer rows.Close()
	snap := &memSnapshot{gen: gen}
	for rows.Next() {
		var (
			n                   int64
			heading, text, tags string
			level               int
			vals                [memtext.NumColumns]string
		)
		if err := rows.Scan(&n, &heading, &text, &tags, &level, &vals[memtext.Pack], &vals[memtext.ContentType], &vals[memtext.Corpus],
			&vals[memtext.Location], &vals[memtext.Faction]); err != nil {
			return nil, gen, ix.explain("build the in-memory full text", err)
		}
		if err := bd.Add(n, heading, text, tags, level, vals); err != nil {
			return nil, gen, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, gen, ix.explain("build the in-memory full text", err)
	}
	mix, cols := bd.Build()
	snap.cols = cols
	if err := checkLengths(ctx, tx, mix); err != nil {
		return nil, gen, err
	}
	snap.ix = mix
	return snap, gen, nil
}

// checkLengths compares each row's token count with FTS5's (its docsize
// shadow table: one SQLite varint per column), so a tokenizer difference
// is found when building rather than as a wrong ranking.
func checkLengths(ctx context.Context, tx *sql.Tx, mix *bm25.Index) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, sz FROM lore_fts_docsize ORDER BY id`)
	if err != nil {
		return fmt.Errorf("build the in-memory full text: read FTS5's row sizes: %w", err)
	}
	defer rows.Close()
	all := mix.Rows()
	i := 0
	for rows.Next() {
		var id int64
		var sz []byte
		if err := rows.Scan(&id, &sz); err != nil {
			return fmt.Errorf("build the in-memory full text: read FTS5's row sizes: %w", err)
		}
		if i >= len(all) || all[i] != id {
			return fmt.Errorf("build the in-memory full text: FTS5 holds row %d, lore_chunks does not agree; rebuild the lore index", id)
		}
		total := 0
		for len(sz) > 0 {
			v, k := sqliteVarint(sz)
			if k == 0 {
				return fmt.Errorf("build the in-memory full text: row %d: bad size record", id)
			}
			total += int(v)
			sz = sz[k:]
		}
		if got, _ := mix.Length(id); got != total {
			return fmt.Errorf("build the in-memory full text: row %d has %d tokens here and %d in FTS5; full text stays with FTS5", id, got, total)
		}
		i++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("build the in-memory full text: read FTS5's row sizes: %w", err)
	}
	if i != len(all) {
		return fmt.Errorf("build the in-memory full text: FTS5 has %d rows, lore_chunks %d; rebuild the lore index", i, len(all))
	}
	return nil
}

// sqliteVarint decodes SQLite's big-endian varint (1 to 9 bytes); k is
// 0 when b ends first.
func sqliteVarint(b []byte) (v uint64, k int) {
	for i := 0; i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}
