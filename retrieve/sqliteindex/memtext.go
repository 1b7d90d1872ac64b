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
// It serves a search only when it is at the generation the search
// reads (migrations/0003): any write, by this process or another, makes
// it stale. The next search then catches it up from lore_chunk_log
// (migrations/0004) in a few milliseconds: the chunks logged since the
// entry it holds are read again and bm25.Index.Apply swaps their
// documents, ranking exactly as a fresh build. The entry it holds is
// known by its number and its random stamp (migrations/0005): when the
// log's entry of that number carries another stamp, the file was
// restored from a copy and written to since, and what the log holds
// after it is not what happened after this snapshot. Only when the log
// cannot say (trimmed past that entry, restarted, restored) or names too
// many changes is it built whole again, in the background, FTS5 serving
// meanwhile; New starts the first build. A build, and a catch-up for the
// rows it adds, checks its token counts row by row against FTS5's own
// (lore_fts_docsize): if the tokenizers ever disagree, the memory index
// is not used.

// memText holds the newest built snapshot and the state of a build.
type memText struct {
	mu       sync.Mutex
	snap     *memSnapshot
	building bool
	failed   error  // the last build's error, kept until one succeeds
	failedAt string // the generation it failed at: not tried again there
	stats    memStats
	updating chan struct{} // closed when the catch-up under way ends
	builds   int           // full builds begun, for tests
	catchUps int           // catch-ups applied, for tests
	fullOnly bool          // never catch up: for the benchmark's before

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// memSnapshot is the full text of one generation of the index.
type memSnapshot struct {
	gen   string
	seq   int64 // the last lore_chunk_log entry it reflects (0: none)
	stamp int64 // that entry's stamp
	ix    *bm25.Index
	cols  memtext.Columns // access level and filter columns per document
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
func (ix *Index) memSearch(ctx context.Context, gen string, text string, role int, f retrieve.Filter, k int) (_ []hit, ok bool, _ error) {
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
func (ix *Index) memRank(ctx context.Context, gen string, text string, role int, f retrieve.Filter, k int) (_ []bm25.Hit, ok bool, _ error) {
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

// memSnapshot returns the snapshot of generation gen, or nil. A stale
// snapshot is caught up from the change log in the search that asks
// (milliseconds; other searches wait for it rather than ask FTS5, which
// takes far longer at 100,000 rows); when there is none or the log
// cannot bring it up to date, a build starts in the background and FTS5
// serves meanwhile, with the same scores, so a search does not wait for
// a build (the first scene of a game is searched while the index is
// still being built).
func (ix *Index) memSnapshot(ctx context.Context, gen string) *memSnapshot {
	m := &ix.mem
	m.mu.Lock()
	if m.snap != nil && m.snap.gen == gen {
		defer m.mu.Unlock()
		return m.snap
	}
	if ch := m.updating; ch != nil {
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil
		}
		m.mu.Lock()
		if m.snap != nil && m.snap.gen == gen {
			defer m.mu.Unlock()
			return m.snap
		}
	}
	if m.failed != nil && m.failedAt == gen || m.building || m.updating != nil || m.ctx == nil || m.ctx.Err() != nil {
		m.mu.Unlock()
		return nil
	}
	if old := m.snap; old != nil && !m.fullOnly {
		done := make(chan struct{})
		m.updating = done
		m.wg.Add(1)
		m.mu.Unlock()
		next, ok, err := ix.catchUpMem(m.ctx, old)
		if err != nil && m.ctx.Err() == nil {
			ix.log.Warn("lore index: in-memory full text not brought up to date from the change log; building it whole, FTS5 serving meanwhile",
				"err", err)
		}
		m.mu.Lock()
		m.updating = nil
		close(done)
		m.wg.Done()
		if err == nil && ok {
			if next != old {
				m.catchUps++
			}
			m.snap = next // no build runs beside a catch-up
			if m.snap.gen == gen {
				defer m.mu.Unlock()
				return m.snap
			}
			// A write came after gen: this search's own generation is
			// past, and the next search catches up again.
			m.mu.Unlock()
			return nil
		}
		// The log cannot say (or failed): build whole. The stale
		// snapshot serves no search again; let it go first.
		m.snap = nil
	}
	m.building = true
	m.builds++
	m.wg.Add(1)
	go ix.buildMem()
	m.mu.Unlock()
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
		if m.ctx.Err() == nil {
			ix.log.Warn("lore index: in-memory full text not built; FTS5 serves", "err", err)
		}
		return
	}
	m.failed = nil
	// No catch-up runs beside a build, and the build read the file after
	// whatever m.snap holds: it is newer, whatever the counters say (a
	// restored file counts from an older value).
	m.snap = snap
	m.stats = memStats{Docs: snap.ix.Docs(), Terms: snap.ix.Terms(), Postings: snap.ix.Postings(),
		Bytes: snap.bytes(), Build: time.Since(start)}
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
// gen is the generation read ("?" when even that failed).
func (ix *Index) readMem(ctx context.Context) (_ *memSnapshot, gen string, _ error) {
	snap, gen, err := ix.readMemAt(ctx)
	if err != nil {
		err = fmt.Errorf("%w (full text is served by FTS5 instead)", err)
	}
	return snap, gen, err
}

func (ix *Index) readMemAt(ctx context.Context) (_ *memSnapshot, gen string, _ error) {
	gen = "?"
	tx, err := ix.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, gen, ix.explain("build the in-memory full text", err)
	}
	defer tx.Rollback()
	var seq, stamp sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT value, (SELECT MAX(seq) FROM lore_chunk_log),
		(SELECT stamp FROM lore_chunk_log ORDER BY seq DESC LIMIT 1)
		FROM lore_meta WHERE key = 'generation'`).Scan(&gen, &seq, &stamp); err != nil {
		return nil, "?", ix.explain("build the in-memory full text", err)
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
	snap := &memSnapshot{gen: gen, seq: seq.Int64, stamp: stamp.Int64}
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

// catchUpMem brings old up to the index as it now stands from
// lore_chunk_log, in one read transaction (so the generation, the log and
// the rows read agree): each chunk logged since old.seq has its document
// removed and, if the chunk still exists, its row read again and added
// (bm25.Index.Apply keeps the document count, mean length and term
// counts exact), with its access level and filter columns. ok is false,
// and the caller builds whole, when the log cannot say (trimmed past
// old.seq, restarted, or its entry old.seq is another write's: the file
// was restored from a copy) or names more changes than compactAt allows.
func (ix *Index) catchUpMem(ctx context.Context, old *memSnapshot) (_ *memSnapshot, ok bool, _ error) {
	const what = "catch up with the in-memory full text"
	tx, err := ix.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, false, ix.explain(what, err)
	}
	defer tx.Rollback()
	var (
		gen                        string
		last, first, stamp, newest sql.NullInt64
	)
	if err := tx.QueryRowContext(ctx, `SELECT value, (SELECT MAX(seq) FROM lore_chunk_log), (SELECT MIN(seq) FROM lore_chunk_log),
		(SELECT stamp FROM lore_chunk_log WHERE seq = ?), (SELECT stamp FROM lore_chunk_log ORDER BY seq DESC LIMIT 1)
		FROM lore_meta WHERE key = 'generation'`, old.seq).Scan(&gen, &last, &first, &stamp, &newest); err != nil {
		return nil, false, ix.explain(what, err)
	}
	switch {
	case old.seq == 0:
		return nil, false, nil // built from an empty log: no entry to check
	case !stamp.Valid && last.Int64 >= old.seq:
		return nil, false, nil // trimmed past what old holds
	case !stamp.Valid || stamp.Int64 != old.stamp:
		ix.log.Info("lore index: the full-text change log does not continue what this process holds in memory (was the database restored from a copy?); building it whole",
			"entry", old.seq, "newest", last.Int64)
		return nil, false, nil
	case last.Int64 == old.seq:
		// No chunk changed (a vector did, or nothing): the same full text.
		return &memSnapshot{gen: gen, seq: old.seq, stamp: old.stamp, ix: old.ix, cols: old.cols}, true, nil
	case !first.Valid || first.Int64 > old.seq+1:
		return nil, false, nil // trimmed past what old holds
	}
	var changed int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(DISTINCT chunk) FROM lore_chunk_log WHERE seq > ? AND seq <= ?`,
		old.seq, last.Int64).Scan(&changed); err != nil {
		return nil, false, ix.explain(what, err)
	}
	if old.ix.Changed()+changed > compactAt(old.ix.Docs()) {
		return nil, false, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT l.chunk, c.heading, c.text, c.tags, c.access,
		c.pack, c.content_type, c.corpus, c.location, c.faction, d.sz
		FROM (SELECT DISTINCT chunk FROM lore_chunk_log WHERE seq > ? AND seq <= ?) l
		LEFT JOIN lore_chunks c ON c.n = l.chunk
		LEFT JOIN lore_fts_docsize d ON d.id = l.chunk
		ORDER BY l.chunk`, old.seq, last.Int64)
	if err != nil {
		return nil, false, ix.explain(what, err)
	}
	defer rows.Close()
	type added struct {
		level int
		vals  [memtext.NumColumns]string
		size  int // FTS5's token count, -1 when it has no row
	}
	var (
		remove []int64
		docs   []bm25.Doc // ascending
		adds   []added
	)
	for rows.Next() {
		var (
			n                   int64
			heading, text, tags sql.NullString
			level               sql.NullInt64
			vals                [memtext.NumColumns]sql.NullString
			sz                  []byte
		)
		if err := rows.Scan(&n, &heading, &text, &tags, &level, &vals[memtext.Pack], &vals[memtext.ContentType], &vals[memtext.Corpus],
			&vals[memtext.Location], &vals[memtext.Faction], &sz); err != nil {
			return nil, false, ix.explain(what, err)
		}
		remove = append(remove, n)
		if !level.Valid {
			continue // deleted
		}
		a := added{level: int(level.Int64), size: -1}
		for i, v := range vals {
			a.vals[i] = v.String
		}
		if sz != nil {
			if a.size, err = docSize(n, sz); err != nil {
				return nil, false, err
			}
		}
		docs = append(docs, bm25.Doc{Row: n, Cols: []string{heading.String, text.String, tags.String}})
		adds = append(adds, a)
	}
	if err := rows.Err(); err != nil {
		return nil, false, ix.explain(what, err)
	}
	next, err := old.ix.Apply(remove, docs)
	if err != nil {
		return nil, false, err
	}
	if next.Postings() > memtext.MaxPostings {
		return nil, false, fmt.Errorf("%s: more than %d postings, past its memory bound", what, memtext.MaxPostings)
	}
	for i, d := range docs {
		if got, _ := next.Length(d.Row); got != adds[i].size {
			return nil, false, fmt.Errorf("%s: row %d has %d tokens here and %d in FTS5; full text stays with FTS5", what, d.Row, got, adds[i].size)
		}
	}
	// The documents' columns: the old ones (removed ones too: their
	// positions stay, never a candidate), then the added.
	snap := &memSnapshot{gen: gen, seq: last.Int64, stamp: newest.Int64, ix: next, cols: old.cols.Derive(len(next.Rows()))}
	for d := range old.cols.Len() {
		snap.cols.AppendFrom(&old.cols, d)
	}
	for _, a := range adds {
		snap.cols.Add(a.level, a.vals)
	}
	return snap, true, nil
}

// docSize sums the token counts of FTS5's size record of row n (one
// SQLite varint per column).
func docSize(n int64, sz []byte) (int, error) {
	total := 0
	for len(sz) > 0 {
		v, k := sqliteVarint(sz)
		if k == 0 {
			return 0, fmt.Errorf("build the in-memory full text: row %d: bad size record", n)
		}
		total += int(v)
		sz = sz[k:]
	}
	return total, nil
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
		total, err := docSize(id, sz)
		if err != nil {
			return err
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
