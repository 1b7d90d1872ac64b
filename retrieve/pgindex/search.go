package pgindex

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/retrieve"
)

// depth is how many candidates each ranking contributes, as on SQLite.
func depth(limit int) int { return min(max(4*limit, 40), 4*retrieve.MaxLimit) }

// maxEfSearch is pgvector's ceiling on hnsw.ef_search.
const maxEfSearch = 1000

// Search runs q: a metadata and role filter in SQL, a ranked full-text
// match over the query's terms, a vector search when an embedder is
// configured, fusion, and the query's limit and budget, as sqliteindex
// does. The role is a condition of every read, so a chunk the role may
// not see is never loaded.
func (ix *Index) Search(ctx context.Context, q retrieve.Query) (retrieve.Result, error) {
	text := q.FullText()
	if len(text) > retrieve.MaxQueryBytes {
		return retrieve.Result{}, hearth.Errorf(hearth.Invalid, "search: query text is %d bytes; the limit is %d", len(text), retrieve.MaxQueryBytes)
	}
	role := roleLevel(q.Role)
	k := depth(q.EffectiveLimit())
	terms := retrieve.Terms(text)

	// One read of the generation says whether the in-memory full text
	// and vectors serve this search.
	var gen string
	if len(terms) > 0 || ix.emb != nil && text != "" {
		var err error
		if gen, err = ix.generation(ctx); err != nil {
			return retrieve.Result{}, ix.explain("search the lore index", err)
		}
	}
	var rankings []ranked
	if len(terms) > 0 {
		hits, err := ix.fullText(ctx, gen, terms, role, q.Filter, k)
		if err != nil {
			return retrieve.Result{}, err
		}
		rankings = append(rankings, ranked{retrieve.FullText, hits})
	}
	vectorRan := false
	if ix.emb != nil && text != "" {
		hits, ran, err := ix.vectorSearch(ctx, gen, text, role, q.Filter, k)
		if err != nil {
			return retrieve.Result{}, err
		}
		if ran {
			vectorRan = true
			rankings = append(rankings, ranked{retrieve.Vector, hits})
		}
	}
	if len(terms) == 0 && !vectorRan {
		hits, err := ix.metadata(ctx, role, q.Filter, k)
		if err != nil {
			return retrieve.Result{}, err
		}
		rankings = append(rankings, ranked{retrieve.Metadata, hits})
	}

	chunks, err := ix.fetch(ctx, role, rankings)
	if err != nil {
		return retrieve.Result{}, err
	}
	lists := make([]retrieve.Ranking, len(rankings))
	for i, r := range rankings {
		lists[i].Kind = r.kind
		for _, h := range r.hits {
			// A row deleted since it was ranked is simply gone.
			if c, ok := chunks[h.n]; ok {
				lists[i].Passages = append(lists[i].Passages, retrieve.Passage{Chunk: c, Score: h.score})
			}
		}
	}
	res := q.Fit(retrieve.Fuse(lists...))
	// Chunks are written at gm_only at most: the GM is withheld nothing.
	if q.Explain && role < int(access.GM) {
		if res.Withheld, err = ix.withheld(ctx, role, terms, vectorRan, q.Filter); err != nil {
			return retrieve.Result{}, err
		}
	}
	return res, nil
}

type hit struct {
	n     int64
	score float64
}

type ranked struct {
	kind retrieve.SignalKind
	hits []hit
}

// roleLevel is the highest access level a role reads: the zero role is
// a player.
func roleLevel(role access.Level) int {
	if role == 0 {
		return int(access.Player)
	}
	return int(role)
}

// query is SQL text being built with numbered parameters.
type query struct {
	b    strings.Builder
	args []any
}

// arg adds a parameter and returns its placeholder.
func (q *query) arg(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

func (q *query) add(s ...string) {
	for _, x := range s {
		q.b.WriteString(x)
	}
}

// where adds the role check and one " AND …" per set filter field on
// lore_chunks c, with the meaning of retrieve.Filter.Match. Lists travel
// as one text[] parameter each.
func (q *query) where(role int, f retrieve.Filter) {
	q.add(" c.access <= ", q.arg(role))
	q.filter(f)
}

// filter adds one " AND …" per set filter field.
func (q *query) filter(f retrieve.Filter) {
	f = f.Normalized()
	if len(f.Packs) > 0 {
		q.add(" AND c.pack = ANY(", q.arg(f.Packs), "::text[])")
	}
	if len(f.ExcludePacks) > 0 {
		q.add(" AND NOT (c.pack = ANY(", q.arg(f.ExcludePacks), "::text[]))")
	}
	if len(f.ContentTypes) > 0 {
		q.add(" AND c.content_type = ANY(", q.arg(f.ContentTypes), "::text[])")
	}
	if len(f.Corpora) > 0 {
		cs := make([]string, len(f.Corpora))
		for i, c := range f.Corpora {
			cs[i] = string(c)
		}
		q.add(" AND c.corpus = ANY(", q.arg(cs), "::text[])")
	}
	if f.Location != "" {
		q.add(" AND c.location = ", q.arg(f.Location))
	}
	if f.Faction != "" {
		q.add(" AND c.faction = ", q.arg(f.Faction))
	}
	if len(f.EntityIDs) > 0 {
		p := q.arg(f.EntityIDs)
		q.add(" AND (c.entity_id = ANY(", p, "::text[]) OR c.refs && ", p, "::text[])")
	}
	if len(f.Threads) > 0 {
		q.add(" AND c.threads && ", q.arg(f.Threads), "::text[]")
	}
	if len(f.Tags) > 0 {
		op := " && "
		if f.TagMatch == retrieve.All {
			op = " @> "
		}
		q.add(" AND c.tags", op, q.arg(f.Tags), "::text[]")
	}
}

// matchAny adds the condition that a chunk holds any of the terms: one
// tsquery of the terms ORed, a parameter the GIN index answers. A term is
// letters, digits and marks only (retrieve.Terms), so it is never
// to_tsquery syntax.
func (q *query) matchAny(terms []string) {
	q.match(terms, " | ")
}

func (q *query) match(terms []string, op string) {
	q.add(`c.tsv @@ to_tsquery('english', `, q.arg(strings.Join(terms, op)), `)`)
}

// fullText ranks the chunks holding any term, best first: per term, its
// IDF (BM25's, from document frequencies counted over every chunk, as
// FTS5 counts them, whatever the reader's role) times ts_rank of the
// chunk for it (field weights and a saturating term frequency, no length
// normalisation: see doc.go), summed. Equal scores go by row (the order
// the chunks were indexed in), as in the in-memory ranking and on
// SQLite, so both backends and both paths break ties alike. Past rankRows matches only a
// bounded candidate set is ranked (termstats.go).
//
// All of that is the fallback: once the in-memory index (memtext.go) is
// built for the index's generation, it ranks instead, by exact BM25.
func (ix *Index) fullText(ctx context.Context, gen string, terms []string, role int, f retrieve.Filter, k int) ([]hit, error) {
	found, ok, err := ix.memRank(ctx, gen, terms, role, f, k)
	if err != nil {
		return nil, err
	}
	if ok {
		hits := make([]hit, len(found))
		for i, h := range found {
			hits[i] = hit{n: h.Row, score: h.Score}
		}
		return hits, nil
	}
	return ix.fullTextBound(ctx, terms, role, f, k, rankRows)
}

// fullTextBound is fullText ranking at most about 2 × bound chunks.
func (ix *Index) fullTextBound(ctx context.Context, terms []string, role int, f retrieve.Filter, k int, bound int64) ([]hit, error) {
	n, dfs, err := ix.termStats(ctx, terms)
	if err != nil {
		return nil, ix.explain("search the lore index's full text", err)
	}
	rare, exact := rareTerms(dfs, bound)
	if len(rare) == 0 {
		return nil, nil // no term is in any chunk
	}
	var ws []string
	var idfs []float64
	for i, t := range terms {
		if dfs[i] > 0 {
			ws = append(ws, t)
			idfs = append(idfs, idf(n, dfs[i]))
		}
	}
	var q query
	q.add(`WITH s AS MATERIALIZED (
		SELECT plainto_tsquery('english', w) AS qt, idf FROM unnest(`, q.arg(ws), `::text[], `, q.arg(idfs), `::float8[]) AS u(w, idf))
	SELECT c.n, (SELECT sum(s.idf * ts_rank(`+rankWeights+`, c.tsv, s.qt, 0)) FROM s)::float8 AS score
		FROM lore_chunks c WHERE `)
	if exact {
		q.matchAny(ws)
		q.add(` AND`)
		q.where(role, f)
	} else {
		rs := make([]string, len(rare))
		for j, i := range rare {
			rs[j] = terms[i]
		}
		lim := q.arg(bound)
		q.add(`c.n IN ((SELECT c.n FROM lore_chunks c WHERE `)
		q.matchAny(rs)
		q.add(` AND`)
		q.where(role, f)
		q.add(` LIMIT `, lim, `) UNION (SELECT c.n FROM lore_chunks c WHERE `)
		q.match(ws, " & ")
		q.add(` AND`)
		q.where(role, f)
		q.add(` LIMIT `, lim, `)) AND`)
		q.where(role, f)
	}
	q.add(` ORDER BY score DESC, c.n LIMIT `, q.arg(k))
	hits, err := ix.hits(ctx, nil, q.b.String(), q.args...)
	if err != nil {
		return nil, ix.explain("search the lore index's full text", err)
	}
	return hits, nil
}

// metadata lists the filter's matches by precedence tier (unset last),
// then pack, file and position in the file, as on SQLite.
func (ix *Index) metadata(ctx context.Context, role int, f retrieve.Filter, k int) ([]hit, error) {
	var q query
	q.add(`SELECT c.n, c.tier::float8 FROM lore_chunks c WHERE`)
	q.where(role, f)
	q.add(` ORDER BY (CASE WHEN c.tier > 0 THEN c.tier ELSE 7 END), c.pack COLLATE "C", c.file COLLATE "C", c.ordinal, c.id COLLATE "C" LIMIT `, q.arg(k))
	hits, err := ix.hits(ctx, nil, q.b.String(), q.args...)
	if err != nil {
		return nil, ix.explain("list the lore index by metadata", err)
	}
	return hits, nil
}

// vectorSearch embeds the query text and finds the most similar vectors
// among the chunks passing the role and the filter: through the HNSW
// index with pgvector, by an exact scan without. It reports false when it
// did not run: no vectors, nothing to embed, or an embedder that failed.
// Vectors at a right angle to the query or further share nothing with it
// and are left out, as on SQLite.
func (ix *Index) vectorSearch(ctx context.Context, gen string, text string, role int, f retrieve.Filter, k int) ([]hit, bool, error) {
	vecs, err := ix.emb.Embed(ctx, []string{text})
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, fmt.Errorf("search: embed the query: %w", err)
		}
		return nil, false, nil // degrade to full text alone
	}
	if len(vecs) != 1 || len(vecs[0]) != ix.emb.Dim() || isZero(vecs[0]) {
		return nil, false, nil
	}
	if hits, ran, ok, err := ix.memVectorSearch(ctx, gen, vecs[0], role, f, k); err != nil || ok {
		return hits, ran, err
	}
	var q query
	var setup []string
	v := q.arg(vecs[0])
	switch ix.mode {
	case VectorsPGExact:
		// pgvector's exact scan: every vector's distance in C, computed
		// where the vectors are read (materialised, so the 1.5 kB vectors
		// are not carried through the join and the sort), then the role
		// and the filter, then a top-k sort.
		dim := strconv.Itoa(ix.emb.Dim())
		q.add(`WITH d AS MATERIALIZED (SELECT chunk, (vec::vector(`+dim+`) <=> `, v, `::real[]::vector(`+dim+`))::float8 AS dist FROM lore_vectors)
		SELECT c.n, 1 - d.dist AS sim FROM d JOIN lore_chunks c ON c.n = d.chunk WHERE d.dist < 1 AND`)
		q.where(role, f)
		q.add(` ORDER BY d.dist, c.n LIMIT `, q.arg(k))
	case VectorsHNSW:
		dim := strconv.Itoa(ix.emb.Dim())
		dist := `(v.vec::vector(` + dim + `) <=> ` + v + `::real[]::vector(` + dim + `))`
		q.add(`SELECT n, sim FROM (SELECT c.n, 1 - `, dist, `::float8 AS sim
			FROM lore_vectors v JOIN lore_chunks c ON c.n = v.chunk WHERE`)
		q.where(role, f)
		q.add(` ORDER BY `, dist, ` LIMIT `, q.arg(k), `) h WHERE sim > 0`)
		// The index must look at least k deep; with a filter, 0.8's
		// iterative scan goes on until k rows pass it.
		setup = append(setup, `SET LOCAL hnsw.ef_search = `+strconv.Itoa(min(max(k, ix.efSearch), maxEfSearch)))
		if ix.iterative {
			setup = append(setup, `SET LOCAL hnsw.iterative_scan = strict_order`)
		}
	default:
		q.add(`SELECT n, sim FROM (SELECT c.n,
			(SELECT sum(x * y) FROM unnest(v.vec, `, v, `::real[]) AS p(x, y))::float8 AS sim
			FROM lore_vectors v JOIN lore_chunks c ON c.n = v.chunk WHERE`)
		q.where(role, f)
		q.add(`) h WHERE sim > 0 ORDER BY sim DESC, n LIMIT `, q.arg(k))
	}
	hits, err := ix.hits(ctx, setup, q.b.String(), q.args...)
	if err != nil {
		return nil, false, ix.explain("search the lore vectors", err)
	}
	if len(hits) == 0 {
		var any bool
		if err := ix.h.Pool().QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM lore_vectors)`).Scan(&any); err != nil {
			return nil, false, ix.explain("search the lore vectors", err)
		}
		if !any {
			return nil, false, nil
		}
	}
	// HNSW returns equal distances in no fixed order (and, approximate,
	// may cut a run of them anywhere at k). Equal similarities go by row,
	// as in the in-memory scan and on SQLite.
	slices.SortFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.n, b.n)) })
	return hits, true, nil
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// hits runs a query whose rows are (n, score), after setup
// statements in the same transaction.
func (ix *Index) hits(ctx context.Context, setup []string, sql string, args ...any) ([]hit, error) {
	var out []hit
	scan := func(rows pgx.Rows) error {
		var h hit
		_, err := pgx.ForEachRow(rows, []any{&h.n, &h.score}, func() error { out = append(out, h); return nil })
		return err
	}
	if len(setup) == 0 {
		// No transaction: BEGIN and COMMIT would be two more round trips.
		rows, err := ix.h.Pool().Query(ctx, sql, args...)
		if err != nil {
			return nil, err
		}
		return out, scan(rows)
	}
	err := ix.h.Tx(ctx, func(tx pgx.Tx) error {
		for _, s := range setup {
			if _, err := tx.Exec(ctx, s); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		return scan(rows)
	})
	return out, err
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
	rows, err := ix.h.Pool().Query(ctx, `SELECT `+chunkColumns+` FROM lore_chunks WHERE n = ANY($1) AND access <= $2`, ns, role)
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

func scanChunk(rows pgx.Rows) (int64, chunk.Chunk, error) {
	var (
		n              int64
		c              chunk.Chunk
		corpus, source string
		level          int16
	)
	err := rows.Scan(&n, &c.ID, &corpus, &c.Pack, &c.File, &c.Section, &c.Page, &c.Ordinal, &source, &c.ContentType,
		&c.EntityType, &c.EntityID, &c.Refs, &c.Location, &c.Faction, &c.Threads, &c.Tags, &c.Tier, &c.IsPlayer,
		&level, &c.Text, &c.Tokens, &c.FileHash, &c.Turn)
	if err != nil {
		return 0, c, err
	}
	c.Corpus, c.SourceType, c.Access = chunk.Corpus(corpus), chunk.SourceType(source), access.Level(level)
	// Empty lists read as nil, as SQLite's do.
	for _, l := range []*[]string{&c.Section, &c.Refs, &c.Threads, &c.Tags} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	return n, c, nil
}

// withheld counts the chunks the role may not see that would otherwise
// have been candidates: those passing the filter (and matching the full
// text, when only full text ran). It reads no chunk.
func (ix *Index) withheld(ctx context.Context, role int, terms []string, vectorRan bool, f retrieve.Filter) (int, error) {
	var q query
	if len(terms) > 0 && !vectorRan {
		q.add(`SELECT count(*) FROM lore_chunks c WHERE `)
		q.matchAny(terms)
		q.add(` AND`)
	} else {
		q.add(`SELECT count(*) FROM lore_chunks c WHERE`)
	}
	q.add(" c.access > ", q.arg(role))
	q.filter(f)
	var n int
	if err := ix.h.Pool().QueryRow(ctx, q.b.String(), q.args...).Scan(&n); err != nil {
		return 0, ix.explain("count withheld lore", err)
	}
	return n, nil
}

// Chunks returns every chunk of one file of a pack, in order, whatever
// its access level: for re-indexing a file whose metadata changed, never
// for answering a reader.
func (ix *Index) Chunks(ctx context.Context, pack, file string) ([]chunk.Chunk, error) {
	rows, err := ix.h.Pool().Query(ctx, `SELECT `+chunkColumns+` FROM lore_chunks
		WHERE pack = $1 AND file = $2 ORDER BY ordinal, n`, pack, file)
	if err != nil {
		return nil, ix.explain("read lore chunks", err)
	}
	defer rows.Close()
	var out []chunk.Chunk
	for rows.Next() {
		_, c, err := scanChunk(rows)
		if err != nil {
			return nil, ix.explain("read lore chunks", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, ix.explain("read lore chunks", err)
	}
	return out, nil
}
