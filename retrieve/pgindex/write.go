package pgindex

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/tokens"
)

// MaxChunkBytes caps one chunk's text, as on SQLite.
const MaxChunkBytes = 256 << 10

// rankWeights are ts_rank's weights for D, C, B and A: text 1, tags 2,
// heading 3, as SQLite's bm25(3.0, 1.0, 2.0), scaled into [0, 1] as
// ts_rank requires.
const rankWeights = `'{0.3333, 0, 0.6667, 1.0}'`

// tsvExpr is a chunk's full-text vector from its heading ($6), tags
// ($17) and text ($21), in insertChunk's numbering.
var tsvExpr = TSVExpr("$6", "$17", "$21")

// TSVExpr is the SQL expression of a chunk's tsv column from the
// expressions (placeholders or columns) of its heading, tags (text[])
// and text: the heading weighted A, tags B and text D, English stemming.
// A copy of the index computes it as Upsert does.
func TSVExpr(heading, tags, text string) string {
	return `setweight(to_tsvector('english', ` + heading + `), 'A') ||
	setweight(to_tsvector('english', array_to_string(` + tags + `::text[], ' ')), 'B') ||
	setweight(to_tsvector('english', ` + text + `), 'D')`
}

var insertChunk = `INSERT INTO lore_chunks (id, corpus, pack, file, section, heading, page, ordinal,
	source_type, content_type, entity_type, entity_id, refs, location, faction, threads, tags,
	tier, is_player, access, text, tokens, file_hash, turn, tsv)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24,
	` + tsvExpr + `)`

const insertVector = `INSERT INTO lore_vectors (chunk, vec) SELECT n, $2 FROM lore_chunks WHERE id = $1
	ON CONFLICT (chunk) DO UPDATE SET vec = excluded.vec`

// Upsert replaces every chunk of pack's file with chunks, in one
// transaction, and records fileHash, exactly as sqliteindex does.
func (ix *Index) Upsert(ctx context.Context, pack, file, fileHash string, chunks []chunk.Chunk) error {
	src := pack + "/" + file
	if pack == "" || file == "" {
		return hearth.Errorf(hearth.Invalid, "index %q: pack and file must not be empty", src)
	}
	cs := make([]chunk.Chunk, len(chunks))
	ids := make(map[string]bool, len(chunks))
	var counter *tokens.Counter
	for i, c := range chunks {
		c.Pack, c.File, c.FileHash = pack, file, fileHash
		if c.ID == "" {
			c.ID = fmt.Sprintf("%s/%s#%d", pack, file, c.Ordinal)
		}
		if c.Corpus == "" {
			c.Corpus = chunk.Lore
		}
		if c.Access == 0 {
			c.Access = access.Player
		}
		switch {
		case ids[c.ID]:
			return hearth.Errorf(hearth.Invalid, "index %s: chunk id %q appears twice", src, c.ID)
		case c.Corpus != chunk.Lore && c.Corpus != chunk.History:
			return hearth.Errorf(hearth.Invalid, "index %s: chunk %q: corpus %q is neither %q nor %q", src, c.ID, c.Corpus, chunk.Lore, chunk.History)
		case c.Access < access.Player || c.Access > access.GM:
			return hearth.Errorf(hearth.Invalid, "index %s: chunk %q: access level %d is not one of player (1) to gm_only (4)", src, c.ID, int(c.Access))
		case len(c.Text) > MaxChunkBytes:
			return hearth.Errorf(hearth.Invalid, "index %s: chunk %q: text is %d bytes, more than the %d a chunk may hold; split it", src, c.ID, len(c.Text), MaxChunkBytes)
		}
		ids[c.ID] = true
		if c.Tokens <= 0 && c.Text != "" {
			if counter == nil {
				var err error
				if counter, err = tokens.CL100K(); err != nil {
					return fmt.Errorf("index %s: %w", src, err)
				}
			}
			c.Tokens = counter.Count(c.Text)
		}
		cs[i] = c
	}
	var vecs [][]float32
	if ix.emb != nil && len(cs) > 0 {
		var err error
		if vecs, err = ix.embed(ctx, cs); err != nil {
			return fmt.Errorf("index %s: %w", src, err)
		}
	}
	err := ix.h.Tx(ctx, func(tx pgx.Tx) error {
		var b pgx.Batch
		b.Queue(`DELETE FROM lore_chunks WHERE pack = $1 AND file = $2`, pack, file)
		b.Queue(bumpGeneration)
		for _, c := range cs {
			b.Queue(insertChunk, chunkArgs(c)...)
		}
		for i, v := range vecs {
			b.Queue(insertVector, cs[i].ID, v)
		}
		b.Queue(`INSERT INTO lore_files (pack, file, hash) VALUES ($1, $2, $3)
			ON CONFLICT (pack, file) DO UPDATE SET hash = excluded.hash`, pack, file, fileHash)
		br := tx.SendBatch(ctx, &b)
		for i := range b.Len() {
			if _, err := br.Exec(); err != nil {
				br.Close()
				if i >= 2 && i < 2+len(cs) {
					c := cs[i-2]
					if pgdb.IsUnique(err) {
						return hearth.Errorf(hearth.Conflict, "chunk id %q is already used by another file; chunk ids must be unique across the index", c.ID)
					}
					return fmt.Errorf("chunk %q: %w", c.ID, err)
				}
				return err
			}
		}
		return br.Close()
	})
	return ix.explain("index "+src, err)
}

// bumpGeneration marks the chunks or their vectors changed, for what is
// cached per generation: the full-text term statistics (termstats.go) and
// the in-memory full text and vectors (memtext.go, memvec.go). It is written in the
// transaction that changes them, with the new generation's random stamp
// (migration 0003), as the triggers' bumps are.
const bumpGeneration = `WITH g AS (INSERT INTO lore_meta (key, value) VALUES ('generation', '1')
		ON CONFLICT (key) DO UPDATE SET value = (lore_meta.value::bigint + 1)::text RETURNING value::bigint AS gen)
	INSERT INTO lore_stamps (gen, stamp)
		SELECT gen, ('x' || substr(md5(gen_random_uuid()::text), 1, 16))::bit(64)::bigint & 9223372036854775807 FROM g
		ON CONFLICT (gen) DO UPDATE SET stamp = excluded.stamp`

// readGeneration is the generation as servers read and compare it,
// "counter.stamp" ("" before any write; the counter alone for a
// generation with no stamp recorded): two reads are equal only when no
// write came between, even across a restore from an older copy, whose
// counter later writes count up again but with other stamps. It is
// compared whole, and parsed only to catch up (parseGen).
const readGeneration = `coalesce((SELECT m.value || coalesce('.' || s.stamp, '') FROM lore_meta m
	LEFT JOIN lore_stamps s ON s.gen = m.value::bigint WHERE m.key = 'generation'), '')`

// explain names the database in an error, keeping a coded error's code.
func (ix *Index) explain(doing string, err error) error {
	if err == nil {
		return nil
	}
	var he *hearth.Error
	if errors.As(err, &he) {
		return fmt.Errorf("%s: %w", doing, err)
	}
	return ix.h.Explain(doing, err)
}

// DeleteFile removes one file's chunks (their vectors go with them) and
// its recorded hash.
func (ix *Index) DeleteFile(ctx context.Context, pack, file string) error {
	return ix.explain("delete "+pack+"/"+file, ix.h.Tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM lore_chunks WHERE pack = $1 AND file = $2`, pack, file); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, bumpGeneration); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM lore_files WHERE pack = $1 AND file = $2`, pack, file)
		return err
	}))
}

// DeletePack removes every chunk and file of a pack.
func (ix *Index) DeletePack(ctx context.Context, pack string) error {
	return ix.explain("delete pack "+pack, ix.h.Tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM lore_chunks WHERE pack = $1`, pack); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, bumpGeneration); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM lore_files WHERE pack = $1`, pack)
		return err
	}))
}

// Hashes returns the hash recorded for each file of pack.
func (ix *Index) Hashes(ctx context.Context, pack string) (map[string]string, error) {
	rows, err := ix.h.Pool().Query(ctx, `SELECT file, hash FROM lore_files WHERE pack = $1`, pack)
	if err != nil {
		return nil, ix.explain("read the file hashes of pack "+pack, err)
	}
	out := map[string]string{}
	var f, h string
	_, err = pgx.ForEachRow(rows, []any{&f, &h}, func() error { out[f] = h; return nil })
	if err != nil {
		return nil, ix.explain("read the file hashes of pack "+pack, err)
	}
	return out, nil
}

// Stats counts what the index holds.
func (ix *Index) Stats(ctx context.Context) (retrieve.Stats, error) {
	var s retrieve.Stats
	var name, dim *string
	err := ix.h.Pool().QueryRow(ctx, `SELECT
		(SELECT COUNT(DISTINCT pack) FROM lore_files),
		(SELECT COUNT(*) FROM lore_files),
		(SELECT COUNT(*) FROM lore_chunks),
		(SELECT COUNT(*) FROM lore_vectors),
		(SELECT value FROM lore_meta WHERE key = 'embedder'),
		(SELECT value FROM lore_meta WHERE key = 'dim')`).Scan(&s.Packs, &s.Files, &s.Chunks, &s.Vectors, &name, &dim)
	if err != nil {
		return s, ix.explain("count the lore index", err)
	}
	if name != nil {
		s.Embedder = *name
	}
	if dim != nil {
		s.Dim, _ = strconv.Atoi(*dim)
	}
	return s, nil
}

// embedText is what a chunk's vector is made from, as on SQLite.
func embedText(heading, text string) string {
	if heading == "" {
		return text
	}
	return heading + "\n" + text
}

func (ix *Index) embed(ctx context.Context, cs []chunk.Chunk) ([][]float32, error) {
	texts := make([]string, len(cs))
	for i, c := range cs {
		texts[i] = embedText(c.Heading(), c.Text)
	}
	return ix.embedTexts(ctx, texts)
}

func (ix *Index) embedTexts(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := ix.emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", ix.emb.Name(), len(vecs), len(texts))
	}
	for _, v := range vecs {
		if len(v) != ix.emb.Dim() {
			return nil, fmt.Errorf("embedder %s returned a vector of %d dimensions, want %d", ix.emb.Name(), len(v), ix.emb.Dim())
		}
	}
	return vecs, nil
}

func chunkArgs(c chunk.Chunk) []any {
	return []any{c.ID, string(c.Corpus), c.Pack, c.File, list(c.Section), c.Heading(), c.Page, c.Ordinal,
		string(c.SourceType), c.ContentType, c.EntityType, c.EntityID, list(c.Refs), c.Location, c.Faction,
		list(c.Threads), list(c.Tags), c.Tier, c.IsPlayer, int16(c.Access), c.Text, c.Tokens, c.FileHash, c.Turn}
}

// list writes a nil list as an empty array: the columns are NOT NULL.
func list(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// reembedBatch is how many chunks New embeds per transaction when
// filling in missing vectors.
const reembedBatch = 256

// syncEmbeddings makes the stored vectors match the configured embedder:
// when its name or dimension differs from the stored one, every vector is
// dropped (and, with pgvector, the HNSW index of the old dimension);
// then every chunk without a vector is embedded. An advisory lock keeps
// servers starting together from doing it twice at once.
func (ix *Index) syncEmbeddings(ctx context.Context) error {
	name, dim := ix.emb.Name(), strconv.Itoa(ix.emb.Dim())
	err := ix.h.Tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('hearth lore vectors'), hashtext(current_schema()))`); err != nil {
			return err
		}
		var haveName, haveDim *string
		if err := tx.QueryRow(ctx, `SELECT (SELECT value FROM lore_meta WHERE key = 'embedder'), (SELECT value FROM lore_meta WHERE key = 'dim')`).
			Scan(&haveName, &haveDim); err != nil {
			return err
		}
		if haveName == nil || *haveName != name || haveDim == nil || *haveDim != dim {
			// TRUNCATE, not DELETE: an index built in this transaction
			// would still see deleted rows, vectors of the old dimension.
			if _, err := tx.Exec(ctx, `TRUNCATE lore_vectors`); err != nil {
				return err
			}
			// Every server's in-memory vectors are stale now.
			if _, err := tx.Exec(ctx, bumpGeneration); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO lore_meta (key, value) VALUES ('embedder', $1), ('dim', $2)
				ON CONFLICT (key) DO UPDATE SET value = excluded.value`, name, dim); err != nil {
				return err
			}
		}
		if ix.mode != VectorsHNSW && ix.mode != VectorsPGExact {
			return nil
		}
		// One HNSW index, over the vectors cast to this dimension: drop
		// any made for another.
		rows, err := tx.Query(ctx, `SELECT indexname FROM pg_indexes
			WHERE schemaname = current_schema() AND tablename = 'lore_vectors' AND indexname LIKE 'lore_vectors_hnsw_%'`)
		if err != nil {
			return err
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		want := "lore_vectors_hnsw_" + dim
		for _, n := range names {
			if n != want {
				if _, err := tx.Exec(ctx, `DROP INDEX `+pgx.Identifier{n}.Sanitize()); err != nil {
					return err
				}
			}
		}
		_, err = tx.Exec(ctx, `CREATE INDEX IF NOT EXISTS `+want+` ON lore_vectors
			USING hnsw ((vec::vector(`+dim+`)) vector_cosine_ops)`)
		return err
	})
	if err != nil {
		return ix.explain("switch the lore index to embedder "+name, err)
	}
	for {
		ns, texts, err := ix.unembedded(ctx)
		if err != nil {
			return err
		}
		if len(ns) == 0 {
			return nil
		}
		vecs, err := ix.embedTexts(ctx, texts)
		if err != nil {
			return fmt.Errorf("embed the lore index with %s: %w", name, err)
		}
		err = ix.h.Tx(ctx, func(tx pgx.Tx) error {
			var b pgx.Batch
			for i, n := range ns {
				b.Queue(`INSERT INTO lore_vectors (chunk, vec) VALUES ($1, $2)
					ON CONFLICT (chunk) DO UPDATE SET vec = excluded.vec`, n, vecs[i])
			}
			b.Queue(bumpGeneration) // the in-memory vectors lack these
			return tx.SendBatch(ctx, &b).Close()
		})
		if err != nil {
			return ix.explain("store lore vectors", err)
		}
	}
}

// unembedded returns a batch of chunks that have no vector.
func (ix *Index) unembedded(ctx context.Context) ([]int64, []string, error) {
	rows, err := ix.h.Pool().Query(ctx, `SELECT n, heading, text FROM lore_chunks c
		WHERE NOT EXISTS (SELECT 1 FROM lore_vectors v WHERE v.chunk = c.n) ORDER BY n LIMIT $1`, reembedBatch)
	if err != nil {
		return nil, nil, ix.explain("find chunks to embed", err)
	}
	var ns []int64
	var texts []string
	var n int64
	var heading, text string
	_, err = pgx.ForEachRow(rows, []any{&n, &heading, &text}, func() error {
		ns = append(ns, n)
		texts = append(texts, embedText(heading, text))
		return nil
	})
	if err != nil {
		return nil, nil, ix.explain("find chunks to embed", err)
	}
	return ns, texts, nil
}
