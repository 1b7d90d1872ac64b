package sqliteindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/retrieve"
)

// depth is how many candidates each ranking contributes: more than the
// limit, so duplicates and passages too long for the budget can be
// replaced from below.
func depth(limit int) int { return min(max(4*limit, 40), 4*retrieve.MaxLimit) }

// Search runs q: a metadata and role filter in SQL, BM25 over the query's
// words, an exact vector scan when an embedder is configured, fusion, and
// the query's limit and budget. A query with no words to search ranks the
// filter's matches by precedence tier, then by their order in their files.
//
// The role is applied inside every read, so a chunk the role may not see
// is never loaded; with Explain, Result.Withheld only counts them. When
// embedding the query fails, the search goes on without vectors.
//
// Results are kept while the index is unchanged (resultCache): a scene's
// lore is asked for each time the scene is entered.
func (ix *Index) Search(ctx context.Context, q retrieve.Query) (retrieve.Result, error) {
	text := q.FullText()
	if len(text) > retrieve.MaxQueryBytes {
		return retrieve.Result{}, fmt.Errorf("search: query text is %d bytes; the limit is %d", len(text), retrieve.MaxQueryBytes)
	}
	gen, err := ix.generation(ctx)
	if err != nil {
		return retrieve.Result{}, err
	}
	key, keep := resultKey(q)
	if keep {
		if r, ok := ix.results.get(gen, key); ok {
			return r, nil
		}
	}
	res, degraded, err := ix.search(ctx, q, text, gen)
	if err == nil && keep && !degraded {
		ix.results.put(gen, key, res)
	}
	return res, err
}

// search runs q; degraded reports a search without vectors because the
// embedder failed, which the next search tries again.
func (ix *Index) search(ctx context.Context, q retrieve.Query, text string, gen string) (_ retrieve.Result, degraded bool, err error) {
	role := roleLevel(q.Role)
	cond, args := where(q.Filter)
	k := depth(q.EffectiveLimit())

	// Full text and the vector scan are independent: run them at once.
	var (
		rankings  []ranked
		ft        ranked
		ftErr     error
		wg        sync.WaitGroup
		vectorRan bool
	)
	match := matchQuery(text)
	if match != "" {
		wg.Go(func() {
			ft.kind = retrieve.FullText
			ft.hits, ftErr = ix.fullText(ctx, gen, text, match, role, q.Filter, cond, args, k)
		})
	}
	if ix.emb != nil && text != "" {
		hits, ran, failed, err := ix.vectorSearch(ctx, text, role, q.Filter, cond, args, k)
		degraded = failed
		if err != nil {
			wg.Wait()
			return retrieve.Result{}, false, err
		}
		if ran {
			vectorRan = true
			rankings = append(rankings, ranked{retrieve.Vector, hits})
		}
	}
	wg.Wait()
	if ftErr != nil {
		return retrieve.Result{}, false, ftErr
	}
	if match != "" {
		rankings = append(rankings, ft)
	}
	if match == "" && !vectorRan {
		hits, err := ix.metadata(ctx, role, cond, args, k)
		if err != nil {
			return retrieve.Result{}, false, err
		}
		rankings = append(rankings, ranked{retrieve.Metadata, hits})
	}

	chunks, err := ix.fetch(ctx, role, rankings)
	if err != nil {
		return retrieve.Result{}, false, err
	}
	lists := make([]retrieve.Ranking, len(rankings))
	for i, r := range rankings {
		lists[i].Kind = r.kind
		for _, h := range r.hits {
			// A row deleted since it was ranked is simply gone.
			if c, ok := chunks[h.n]; ok {
				lists[i].Passages = append(lists[i].Passages, retrieve.Passage{Chunk: c, Score: float64(h.score)})
			}
		}
	}
	res := q.Fit(retrieve.Fuse(lists...))
	// Chunks are written at gm_only at most, so the GM is withheld nothing:
	// counting would cost a second full-text scan for a known zero.
	if q.Explain && role < int(access.GM) {
		if res.Withheld, err = ix.withheld(ctx, role, match, vectorRan, cond, args); err != nil {
			return retrieve.Result{}, false, err
		}
	}
	return res, degraded, nil
}

type ranked struct {
	kind retrieve.SignalKind
	hits []hit
}

// fullText ranks the chunks matching an FTS5 expression by BM25 (with
// the column weights configured as the table's rank), best first. It
// orders by rank alone: FTS5 sorts that itself, several times faster
// than a sort on (rank, rowid), and its order of equal ranks is fixed
// for given contents.
//
// FTS5 scores every match before the join applies the filter, and BM25
// over a thousand matches of a scene's thirty words is most of a turn.
// A selective filter (an entity, a location) admits a few chunks: their
// span of rows is handed to FTS5 as a rowid range, which it seeks to,
// so only the matches in it are scored. Scores are the table's, so the
// ranking is the same as without the range.
//
// Otherwise, when a few rare words decide the top k, only the rows
// holding them are scored (rareFirst).
//
// All of that is the fallback: while the in-memory index (memtext.go)
// is built for the generation being searched, it answers instead, with
// the same scores.
func (ix *Index) fullText(ctx context.Context, gen string, text, match string, role int, f retrieve.Filter, cond string, args []any, k int) ([]hit, error) {
	if hits, ok, err := ix.memSearch(ctx, gen, text, role, f, k); err != nil || ok {
		return hits, err
	}
	if !selective(f) {
		hits, ok, err := ix.rareFirst(ctx, gen, retrieve.Terms(text), role, cond, args, k, rareRows)
		if err != nil || ok {
			return hits, err
		}
	}
	return ix.ftsHits(ctx, match, role, f, cond, args, k)
}

// ftsHits is FTS5's own ranking of the matches of match, best first.
// Equal ranks come by rowid (the order the chunks were indexed in), as
// in the other rankings and on PostgreSQL: FTS5 reads a match's rows in
// rowid order and its sort by rank keeps that order among equals
// (TestFullTextTiesOnEveryPath holds it to that).
func (ix *Index) ftsHits(ctx context.Context, match string, role int, f retrieve.Filter, cond string, args []any, k int) ([]hit, error) {
	query := `SELECT lore_fts.rowid, -lore_fts.rank FROM lore_fts JOIN lore_chunks c ON c.n = lore_fts.rowid
		WHERE lore_fts MATCH ? AND c.access <= ?` + cond
	qargs := append([]any{match, role}, args...)
	if selective(f) {
		lo, hi, ok, err := ix.span(ctx, role, cond, args)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, nil // nothing passes the filter
		}
		query += ` AND lore_fts.rowid BETWEEN ? AND ?`
		qargs = append(qargs, lo, hi)
	}
	hits, err := ix.hits(ctx, query+` ORDER BY lore_fts.rank LIMIT ?`, append(qargs, k)...)
	if err != nil {
		return nil, ix.explain("search the lore index's full text", err)
	}
	return hits, nil
}

// selective reports whether a filter names something a chunk is about:
// such filters admit a handful of chunks, where packs, content types and
// corpora admit thousands.
func selective(f retrieve.Filter) bool {
	return len(f.EntityIDs) > 0 || len(f.Threads) > 0 || len(f.Tags) > 0 || f.Location != "" || f.Faction != ""
}

// span is the lowest and highest row that passes the role and a filter;
// ok is false when none does.
func (ix *Index) span(ctx context.Context, role int, cond string, args []any) (lo, hi int64, ok bool, err error) {
	rows, err := ix.stmts.query(ctx, `SELECT min(c.n), max(c.n) FROM lore_chunks c WHERE c.access <= ?`+cond,
		append([]any{role}, args...)...)
	if err != nil {
		return 0, 0, false, ix.explain("search the lore index's full text", err)
	}
	defer rows.Close()
	var l, h sql.NullInt64
	if rows.Next() {
		if err := rows.Scan(&l, &h); err != nil {
			return 0, 0, false, ix.explain("search the lore index's full text", err)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, 0, false, ix.explain("search the lore index's full text", err)
	}
	return l.Int64, h.Int64, l.Valid, nil
}

// metadata lists the filter's matches by precedence tier (unset last),
// then pack, file and position in the file. The signal's score is the
// tier.
func (ix *Index) metadata(ctx context.Context, role int, cond string, args []any, k int) ([]hit, error) {
	query := `SELECT c.n, c.tier FROM lore_chunks c WHERE c.access <= ?` + cond +
		` ORDER BY (CASE WHEN c.tier > 0 THEN c.tier ELSE 7 END), c.pack, c.file, c.ordinal, c.id LIMIT ?`
	hits, err := ix.hits(ctx, query, append(append([]any{role}, args...), k)...)
	if err != nil {
		return nil, ix.explain("list the lore index by metadata", err)
	}
	return hits, nil
}

// vectorSearch embeds the query text and scans the vectors of the chunks
// that pass the role and the filter. It reports false when it did not run:
// no vectors, a text with nothing to embed, or an embedder that failed
// (failed, then).
func (ix *Index) vectorSearch(ctx context.Context, text string, role int, f retrieve.Filter, cond string, args []any, k int) (_ []hit, ran, failed bool, _ error) {
	vecs, err := ix.emb.Embed(ctx, []string{text})
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, false, fmt.Errorf("search: embed the query: %w", err)
		}
		return nil, false, true, nil // degrade to full text alone
	}
	if len(vecs) != 1 || len(vecs[0]) != ix.emb.Dim() || isZero(vecs[0]) {
		return nil, false, false, nil
	}
	vc, err := ix.vectors(ctx)
	if err != nil {
		return nil, false, false, err
	}
	if vc.Len() == 0 {
		return nil, false, false, nil
	}
	var allowed []int64
	if !f.IsZero() {
		// The filter narrows in SQL (with the role); the scan then
		// visits only those rows.
		if allowed, err = ix.rowSet(ctx, role, cond, args); err != nil {
			return nil, false, false, err
		}
	}
	return hitsOf(vc.Search(vecs[0], role, k, allowed, ix.cands, &ix.scratch)), true, false, nil
}

// rowSet returns the rows that pass the role and a filter, ascending.
// They come back as one comma-separated text rather than a row each: for
// tens of thousands of rows that is several times faster through
// database/sql.
func (ix *Index) rowSet(ctx context.Context, role int, cond string, args []any) ([]int64, error) {
	rows, err := ix.stmts.query(ctx, `SELECT group_concat(n) FROM (SELECT c.n FROM lore_chunks c WHERE c.access <= ?`+cond+` ORDER BY c.n)`,
		append([]any{role}, args...)...)
	if err != nil {
		return nil, ix.explain("filter the lore vectors", err)
	}
	defer rows.Close()
	var list sql.NullString
	if rows.Next() {
		if err := rows.Scan(&list); err != nil {
			return nil, ix.explain("filter the lore vectors", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, ix.explain("filter the lore vectors", err)
	}
	out := make([]int64, 0, strings.Count(list.String, ",")+1)
	var n int64
	digits := false
	for i := 0; i <= len(list.String); i++ {
		if i == len(list.String) || list.String[i] == ',' {
			if digits {
				out = append(out, n)
			}
			n, digits = 0, false
			continue
		}
		d := list.String[i]
		if d < '0' || d > '9' {
			return nil, fmt.Errorf("filter the lore vectors: unexpected %q in a row list", d)
		}
		n, digits = n*10+int64(d-'0'), true
	}
	return out, nil
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// hits runs a query whose rows are (row, score).
func (ix *Index) hits(ctx context.Context, query string, args ...any) ([]hit, error) {
	rows, err := ix.stmts.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []hit
	for rows.Next() {
		var h hit
		var score float64
		if err := rows.Scan(&h.n, &score); err != nil {
			return nil, err
		}
		h.score = float32(score)
		out = append(out, h)
	}
	return out, rows.Err()
}

const chunkColumns = `n, id, corpus, pack, file, section, page, ordinal, source_type, content_type,
	entity_type, entity_id, refs, location, faction, threads, tags, tier, is_player, access, text, tokens, file_hash, turn`

// fetch reads the ranked chunks, checking the role once more.
func (ix *Index) fetch(ctx context.Context, role int, rankings []ranked) (map[int64]chunk.Chunk, error) {
	var ns []int64
	seen := map[int64]bool{}
	for _, r := range rankings {
		for _, h := range r.hits {
			if !seen[h.n] {
				seen[h.n] = true
				ns = append(ns, h.n)
			}
		}
	}
	out := make(map[int64]chunk.Chunk, len(ns))
	if len(ns) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(ns) // an []int64 always marshals
	rows, err := ix.stmts.query(ctx, `SELECT `+chunkColumns+` FROM lore_chunks
		WHERE n IN (SELECT value FROM json_each(?)) AND access <= ?`, string(list), role)
	if err != nil {
		return nil, ix.explain("read lore chunks", err)
	}
	defer rows.Close()
	for rows.Next() {
		n, c, err := scanChunk(rows)
		if err != nil {
			return nil, ix.explain("read lore chunks", err)
		}
		if !access.Level(role).CanSee(c.Access) {
			continue // unreachable: the query checked; kept as a second lock
		}
		out[n] = c
	}
	if err := rows.Err(); err != nil {
		return nil, ix.explain("read lore chunks", err)
	}
	return out, nil
}

func scanChunk(rows *sql.Rows) (int64, chunk.Chunk, error) {
	var (
		n                            int64
		c                            chunk.Chunk
		corpus, source               string
		section, refs, threads, tags string
		accessLevel                  int
	)
	err := rows.Scan(&n, &c.ID, &corpus, &c.Pack, &c.File, &section, &c.Page, &c.Ordinal, &source, &c.ContentType,
		&c.EntityType, &c.EntityID, &refs, &c.Location, &c.Faction, &threads, &tags, &c.Tier, &c.IsPlayer,
		&accessLevel, &c.Text, &c.Tokens, &c.FileHash, &c.Turn)
	if err != nil {
		return 0, c, err
	}
	c.Corpus, c.SourceType, c.Access = chunk.Corpus(corpus), chunk.SourceType(source), access.Level(accessLevel)
	for _, l := range []struct {
		dst *[]string
		src string
	}{{&c.Section, section}, {&c.Refs, refs}, {&c.Threads, threads}, {&c.Tags, tags}} {
		if l.src == "[]" || l.src == "" {
			continue
		}
		if err := json.Unmarshal([]byte(l.src), l.dst); err != nil {
			return 0, c, fmt.Errorf("chunk %q: bad list %q: %w", c.ID, l.src, err)
		}
	}
	return n, c, nil
}

// withheld counts the chunks the role may not see that would otherwise
// have been candidates: those passing the filter (and matching the full
// text, when only full text ran). It reads no chunk.
func (ix *Index) withheld(ctx context.Context, role int, match string, vectorRan bool, cond string, args []any) (int, error) {
	var query string
	var qargs []any
	if match != "" && !vectorRan {
		query = `SELECT COUNT(*), 0 FROM lore_fts JOIN lore_chunks c ON c.n = lore_fts.rowid
			WHERE lore_fts MATCH ? AND c.access > ?` + cond
		qargs = append([]any{match, role}, args...)
	} else {
		query = `SELECT COUNT(*), 0 FROM lore_chunks c WHERE c.access > ?` + cond
		qargs = append([]any{role}, args...)
	}
	hits, err := ix.hits(ctx, query, qargs...)
	if err != nil {
		return 0, ix.explain("count withheld lore", err)
	}
	if len(hits) == 0 {
		return 0, nil
	}
	return int(hits[0].n), nil
}
