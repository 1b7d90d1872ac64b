package sqliteindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/tokens"
)

// MaxChunkBytes caps one chunk's text. Chunks are at most chunk.MaxTokens
// tokens, a few kilobytes; anything far larger is a chunker's bug.
const MaxChunkBytes = 256 << 10

// Statements every Upsert runs, prepared once on the write connection.
const (
	insertChunk = `INSERT INTO lore_chunks (id, corpus, pack, file, section, heading, page, ordinal,
	source_type, content_type, entity_type, entity_id, refs, location, faction, threads, tags,
	tier, is_player, access, text, tokens, file_hash, turn)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	insertKey    = `INSERT OR IGNORE INTO lore_keys (kind, value, chunk) VALUES (?, ?, ?)`
	insertVector = `INSERT OR REPLACE INTO lore_vectors (chunk, vec) VALUES (?, ?)`
)

// prepare prepares the write statements.
func (ix *Index) prepare(ctx context.Context) error {
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{{&ix.insChunk, insertChunk}, {&ix.insKey, insertKey}, {&ix.insVec, insertVector}} {
		s, err := ix.w.PrepareContext(ctx, p.sql)
		if err != nil {
			return ix.explain("prepare the lore index", err)
		}
		*p.dst = s
	}
	return nil
}

// Upsert replaces every chunk of pack's file with chunks, in one
// transaction, and records fileHash for Hashes. Each chunk takes pack,
// file and fileHash from the arguments; a chunk without an ID gets
// "pack/file#ordinal", and one without a token count is counted. With an
// embedder, the chunks are embedded before the transaction starts.
func (ix *Index) Upsert(ctx context.Context, pack, file, fileHash string, chunks []chunk.Chunk) error {
	src := pack + "/" + file
	if pack == "" || file == "" {
		return fmt.Errorf("index %q: pack and file must not be empty", src)
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
			return fmt.Errorf("index %s: chunk id %q appears twice", src, c.ID)
		case c.Corpus != chunk.Lore && c.Corpus != chunk.History:
			return fmt.Errorf("index %s: chunk %q: corpus %q is neither %q nor %q", src, c.ID, c.Corpus, chunk.Lore, chunk.History)
		case c.Access < access.Player || c.Access > access.GM:
			return fmt.Errorf("index %s: chunk %q: access level %d is not one of player (1) to gm_only (4)", src, c.ID, int(c.Access))
		case len(c.Text) > MaxChunkBytes:
			return fmt.Errorf("index %s: chunk %q: text is %d bytes, more than the %d a chunk may hold; split it", src, c.ID, len(c.Text), MaxChunkBytes)
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

	return ix.write(ctx, "index "+src, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM lore_chunks WHERE pack = ? AND file = ?`, pack, file); err != nil {
			return err
		}
		ins := tx.StmtContext(ctx, ix.insChunk)
		key := tx.StmtContext(ctx, ix.insKey)
		vec := tx.StmtContext(ctx, ix.insVec)
		for i, c := range cs {
			res, err := ins.ExecContext(ctx, chunkArgs(c)...)
			if err != nil {
				if strings.Contains(err.Error(), "UNIQUE") {
					return fmt.Errorf("chunk id %q is already used by another file; chunk ids must be unique across the index: %w", c.ID, err)
				}
				return fmt.Errorf("chunk %q: %w", c.ID, err)
			}
			n, err := res.LastInsertId()
			if err != nil {
				return err
			}
			for _, k := range keysOf(c) {
				if _, err := key.ExecContext(ctx, k.kind, k.value, n); err != nil {
					return fmt.Errorf("chunk %q: %w", c.ID, err)
				}
			}
			if vecs != nil {
				if _, err := vec.ExecContext(ctx, n, embedding.Encode(vecs[i])); err != nil {
					return fmt.Errorf("chunk %q: vector: %w", c.ID, err)
				}
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO lore_files (pack, file, hash) VALUES (?, ?, ?)
			ON CONFLICT (pack, file) DO UPDATE SET hash = excluded.hash`, pack, file, fileHash)
		return err
	})
}

// DeleteFile removes one file's chunks and its recorded hash.
func (ix *Index) DeleteFile(ctx context.Context, pack, file string) error {
	return ix.write(ctx, "delete "+pack+"/"+file, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM lore_chunks WHERE pack = ? AND file = ?`, pack, file); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM lore_files WHERE pack = ? AND file = ?`, pack, file)
		return err
	})
}

// DeletePack removes every chunk and file of a pack.
func (ix *Index) DeletePack(ctx context.Context, pack string) error {
	return ix.write(ctx, "delete pack "+pack, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM lore_chunks WHERE pack = ?`, pack); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM lore_files WHERE pack = ?`, pack)
		return err
	})
}

// Optimize merges the full-text index into one segment. Each write
// leaves segments of its own behind, and a search seeks every word it
// holds in every segment: after a pack's files are written one by one, a
// scene's lore costs about twice what it costs merged. The rows, and so
// every ranking, stay as they were.
func (ix *Index) Optimize(ctx context.Context) error {
	_, err := ix.w.ExecContext(ctx, `INSERT INTO lore_fts (lore_fts) VALUES ('optimize')`)
	return ix.explain("optimize the lore index", err)
}

// Hashes returns the hash recorded for each file of pack.
func (ix *Index) Hashes(ctx context.Context, pack string) (map[string]string, error) {
	rows, err := ix.r.QueryContext(ctx, `SELECT file, hash FROM lore_files WHERE pack = ?`, pack)
	if err != nil {
		return nil, ix.explain("read the file hashes of pack "+pack, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var f, h string
		if err := rows.Scan(&f, &h); err != nil {
			return nil, ix.explain("read the file hashes of pack "+pack, err)
		}
		out[f] = h
	}
	if err := rows.Err(); err != nil {
		return nil, ix.explain("read the file hashes of pack "+pack, err)
	}
	return out, nil
}

// Stats counts what the index holds.
func (ix *Index) Stats(ctx context.Context) (retrieve.Stats, error) {
	var s retrieve.Stats
	var name, dim sql.NullString
	err := ix.r.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(DISTINCT pack) FROM lore_files),
		(SELECT COUNT(*) FROM lore_files),
		(SELECT COUNT(*) FROM lore_chunks),
		(SELECT COUNT(*) FROM lore_vectors),
		(SELECT value FROM lore_meta WHERE key = 'embedder'),
		(SELECT value FROM lore_meta WHERE key = 'dim')`).Scan(&s.Packs, &s.Files, &s.Chunks, &s.Vectors, &name, &dim)
	if err != nil {
		return s, ix.explain("count the lore index", err)
	}
	s.Embedder = name.String
	fmt.Sscan(dim.String, &s.Dim)
	return s, nil
}

// keepVectorLog is how many of the newest lore_vector_log and
// lore_chunk_log entries each write keeps. A vector cache or in-memory
// full text further behind than that would reload in full anyway (see
// compactAt).
const keepVectorLog = 1 << 16

// write runs fn in one immediate transaction, trimming the change logs
// in the same transaction.
func (ix *Index) write(ctx context.Context, doing string, fn func(*sql.Tx) error) error {
	tx, err := ix.w.BeginTx(ctx, nil)
	if err != nil {
		return ix.explain(doing, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return ix.explain(doing, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM lore_vector_log
		WHERE seq <= (SELECT MAX(seq) FROM lore_vector_log) - ?`, keepVectorLog); err != nil {
		tx.Rollback()
		return ix.explain(doing, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM lore_chunk_log
		WHERE seq <= (SELECT MAX(seq) FROM lore_chunk_log) - ?`, keepVectorLog); err != nil {
		tx.Rollback()
		return ix.explain(doing, err)
	}
	if err := tx.Commit(); err != nil {
		return ix.explain(doing, err)
	}
	return nil
}

// embedText is what a chunk's vector is made from: its heading path and
// its text.
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
	vecs, err := ix.emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", ix.emb.Name(), len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) != ix.emb.Dim() {
			return nil, fmt.Errorf("embedder %s returned a vector of %d dimensions for chunk %q, want %d", ix.emb.Name(), len(v), cs[i].ID, ix.emb.Dim())
		}
	}
	return vecs, nil
}

func chunkArgs(c chunk.Chunk) []any {
	return []any{c.ID, string(c.Corpus), c.Pack, c.File, jsonList(c.Section), c.Heading(), c.Page, c.Ordinal,
		string(c.SourceType), c.ContentType, c.EntityType, c.EntityID, jsonList(c.Refs), c.Location, c.Faction,
		jsonList(c.Threads), jsonList(c.Tags), c.Tier, c.IsPlayer, int(c.Access), c.Text, c.Tokens, c.FileHash, c.Turn}
}

func jsonList(s []string) string {
	if len(s) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(s) // a []string always marshals
	return string(b)
}

type keyRow struct{ kind, value string }

// keysOf lists the set-valued metadata filters test: tags, threads and
// the entities the chunk is about or mentions.
func keysOf(c chunk.Chunk) []keyRow {
	var ks []keyRow
	for _, t := range c.Tags {
		ks = append(ks, keyRow{"tag", t})
	}
	for _, t := range c.Threads {
		ks = append(ks, keyRow{"thread", t})
	}
	if c.EntityID != "" {
		ks = append(ks, keyRow{"entity", c.EntityID})
	}
	for _, r := range c.Refs {
		ks = append(ks, keyRow{"entity", r})
	}
	return ks
}
