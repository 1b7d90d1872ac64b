package pgindex

import (
	"context"
	"fmt"

	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/bm25"
	"github.com/hearth-rpg/hearth/retrieve/memtext"
	"github.com/jackc/pgx/v5"
)

// Full text in memory: the same retrieve/bm25 index the SQLite backend
// ranks from, built here from lore_chunks (heading, text and tags,
// weighted 3, 1 and 2 as on SQLite), so both backends rank full text by
// the same exact BM25 with FTS5's tokens. It is built in the background
// when a search first finds none for the index's generation (lore_meta's
// counter, bumped in every writing transaction: any server's write makes
// every server's copy stale at once), in a repeatable-read transaction
// that reads the generation with the rows. Once built, a search that
// finds it stale catches it up from the change log (catchUpMem) and
// builds it whole only when the log cannot say; until it is built, the
// tsvector ranking (search.go, termstats.go) serves.

// memText is the full text in memory, per generation (built.go).
type memText = built[memSnapshot]

type memSnapshot struct {
	ix   *bm25.Index
	cols memtext.Columns // access level and filter columns per document
}

// generation reads lore_meta's counter ("" before any write).
func (ix *Index) generation(ctx context.Context) (string, error) {
	var gen string
	err := ix.h.Pool().QueryRow(ctx, `SELECT `+readGeneration).Scan(&gen)
	return gen, err
}

// memRank ranks terms over the memory index with the role and filter;
// ok is false when it has none for generation gen (the current one), or a term is
// not one token.
func (ix *Index) memRank(ctx context.Context, gen string, terms []string, role int, f retrieve.Filter, k int) (_ []bm25.Hit, ok bool, _ error) {
	snap := ix.memSnapshot(ctx, gen)
	if snap == nil {
		return nil, false, nil
	}
	var toks []string
	for _, w := range terms {
		t := bm25.Tokens(w)
		if len(t) != 1 {
			return nil, false, nil
		}
		toks = append(toks, t[0])
	}
	accept, err := ix.memFilter(ctx, snap, role, f)
	if err != nil {
		return nil, false, err
	}
	return snap.ix.Search(toks, k, accept), true, nil
}

// memFilter is the WHERE clause of search.go over a snapshot: the
// per-row columns in Go, entities (id or reference), threads and tags
// through SQL, which names the few rows they admit.
func (ix *Index) memFilter(ctx context.Context, snap *memSnapshot, role int, f retrieve.Filter) (func(int) bool, error) {
	return ix.accept(ctx, &snap.cols, snap.ix.Rows(), role, f)
}

// accept is the test of memtext.Columns.Accept for cols, whose documents
// are rows (ascending), with the keyed part of f answered in SQL.
func (ix *Index) accept(ctx context.Context, cols *memtext.Columns, rows []int64, role int, f retrieve.Filter) (func(int) bool, error) {
	var allowed []int64 // ascending
	keys := memtext.Keyed(f)
	if !keys.IsZero() {
		var q query
		q.add(`SELECT c.n FROM lore_chunks c WHERE`)
		q.where(role, keys)
		q.add(` ORDER BY c.n`)
		rows, err := ix.h.Pool().Query(ctx, q.b.String(), q.args...)
		if err != nil {
			return nil, ix.explain("filter the lore index's full text", err)
		}
		ns, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return nil, ix.explain("filter the lore index's full text", err)
		}
		allowed = ns
	}
	return cols.Accept(role, f, rows, !keys.IsZero(), allowed), nil
}

// memSnapshot returns the full text of generation gen, or nil, starting
// a build when there is none.
func (ix *Index) memSnapshot(ctx context.Context, gen string) *memSnapshot {
	return ix.mem.get(ctx, gen, ix.countChunks, ix.log)
}

// memSyncRows is the largest index built in the search that asks.
const memSyncRows = 5000

// countChunks counts the chunks, or returns memSyncRows+1 when it cannot.
func (ix *Index) countChunks(ctx context.Context) int {
	var n int
	if err := ix.h.Pool().QueryRow(ctx, `SELECT count(*) FROM lore_chunks`).Scan(&n); err != nil {
		return memSyncRows + 1
	}
	return n
}

// WaitFullText waits until the in-memory full text serves the index as
// it now stands, building it if need be: for tools, tests and
// benchmarks. It returns the build's error when it cannot be built.
func (ix *Index) WaitFullText(ctx context.Context) error {
	return ix.waitBuilt(ctx, func(ctx context.Context, gen string) bool { return ix.memSnapshot(ctx, gen) != nil },
		ix.mem.state, fmt.Errorf("the in-memory full text is turned off"))
}

// readMem reads the generation and every chunk's full-text columns in
// one repeatable-read transaction and builds the index.
func (ix *Index) readMem(ctx context.Context) (_ *memSnapshot, gen string, err error) {
	gen = "?"
	tx, err := ix.h.Pool().BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, gen, ix.explain("build the in-memory full text", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := tx.QueryRow(ctx, `SELECT `+readGeneration).Scan(&gen); err != nil {
		return nil, "?", ix.explain("build the in-memory full text", err)
	}
	bd, err := memtext.NewBuilder()
	if err != nil {
		return nil, gen, err
	}
	rows, err := tx.Query(ctx, `SELECT n, heading, text, array_to_string(tags, ' '), access, pack, content_type, corpus, location, faction
		FROM lore_chunks ORDER BY n`)
	if err != nil {
		return nil, gen, ix.explain("build the in-memory full text", err)
	}
	defer rows.Close()
	snap := &memSnapshot{}
	var (
		n                   int64
		heading, text, tags string
		level               int16
		vals                [memtext.NumColumns]string
	)
	for rows.Next() {
		if err := rows.Scan(&n, &heading, &text, &tags, &level, &vals[memtext.Pack], &vals[memtext.ContentType], &vals[memtext.Corpus],
			&vals[memtext.Location], &vals[memtext.Faction]); err != nil {
			return nil, gen, ix.explain("build the in-memory full text", err)
		}
		if err := bd.Add(n, heading, text, tags, int(level), vals); err != nil {
			return nil, gen, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, gen, ix.explain("build the in-memory full text", err)
	}
	snap.ix, snap.cols = bd.Build()
	return snap, gen, nil
}

// catchUpMem brings old, the full text of generation oldGen, up to the
// current generation from lore_changes (migration 0002), as catchUpVecs
// does the vectors: each changed chunk's document is removed and, if the
// chunk still exists, its row read again and added (bm25.Index.Apply,
// which keeps the document count, mean length and term counts exact).
// ok is false, and the caller builds it whole, when the log cannot say
// or names more changes than compactAt allows.
func (ix *Index) catchUpMem(ctx context.Context, old *memSnapshot, oldGen string) (_ *memSnapshot, gen string, ok bool, err error) {
	const what = "catch up with the in-memory full text"
	tx, from, to, gen, ok, err := ix.beginCatchUp(ctx, oldGen, what,
		func(changed int) bool { return old.ix.Changed()+changed <= compactAt(old.ix.Docs()) })
	if tx == nil {
		if ok {
			return old, gen, true, nil
		}
		return nil, "", false, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	rows, err := tx.Query(ctx, `SELECT l.chunk, c.heading, c.text, array_to_string(c.tags, ' '), c.access,
		c.pack, c.content_type, c.corpus, c.location, c.faction
		FROM (SELECT DISTINCT chunk FROM lore_changes WHERE gen > $1 AND gen <= $2) l
		LEFT JOIN lore_chunks c ON c.n = l.chunk
		ORDER BY l.chunk`, from, to)
	if err != nil {
		return nil, "", false, ix.explain(what, err)
	}
	defer rows.Close()
	type added struct {
		level int16
		vals  [memtext.NumColumns]string
	}
	var (
		remove              []int64
		docs                []bm25.Doc // ascending
		cols                []added
		n                   int64
		heading, text, tags *string
		level               *int16
		vals                [memtext.NumColumns]*string
	)
	for rows.Next() {
		if err := rows.Scan(&n, &heading, &text, &tags, &level, &vals[memtext.Pack], &vals[memtext.ContentType], &vals[memtext.Corpus],
			&vals[memtext.Location], &vals[memtext.Faction]); err != nil {
			return nil, "", false, ix.explain(what, err)
		}
		remove = append(remove, n)
		if heading == nil || text == nil || tags == nil || level == nil {
			continue // deleted
		}
		a := added{level: *level}
		for i, v := range vals {
			if v != nil {
				a.vals[i] = *v
			}
		}
		docs = append(docs, bm25.Doc{Row: n, Cols: []string{*heading, *text, *tags}})
		cols = append(cols, a)
	}
	if err := rows.Err(); err != nil {
		return nil, "", false, ix.explain(what, err)
	}
	next, err := old.ix.Apply(remove, docs)
	if err != nil {
		return nil, "", false, err
	}
	if next.Postings() > memtext.MaxPostings {
		return nil, "", false, fmt.Errorf("%s: more than %d postings, past its memory bound", what, memtext.MaxPostings)
	}
	// The documents' columns: the old ones (removed ones too: their
	// positions stay, never a candidate), then the added.
	snap := &memSnapshot{ix: next, cols: old.cols.Derive(len(next.Rows()))}
	for d := range old.cols.Len() {
		snap.cols.AppendFrom(&old.cols, d)
	}
	for _, a := range cols {
		snap.cols.Add(int(a.level), a.vals)
	}
	return snap, gen, true, nil
}
