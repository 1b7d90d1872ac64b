package database

import (
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/retrieve/pgindex"
)

// kind is how one column's value is kept on each backend. Copy reads a
// value into its kind's Go form (int64, float64, string, []byte, bool,
// []string, []float32, or nil) and writes it in the target's.
type kind int

const (
	kInt     kind = iota // INTEGER / BIGINT, INTEGER, SMALLINT
	kFloat               // REAL / DOUBLE PRECISION
	kText                // TEXT / TEXT
	kBlob                // BLOB / BYTEA
	kBool                // INTEGER 0 or 1 / BOOLEAN
	kList                // JSON array of strings as TEXT / TEXT[]
	kVector              // little-endian float32 BLOB / REAL[]
	kRFC3339             // RFC 3339 text with nanoseconds, UTC / BIGINT Unix nanoseconds
	kStamp               // fixed-width UTC text (stampLayout) / BIGINT Unix nanoseconds
)

// stampLayout is the library's job times on SQLite: fixed width, so text
// order is time order.
const stampLayout = "2006-01-02T15:04:05.000000000Z"

// column is one column of a copied table.
type column struct {
	sqlite, pg string // its name on each backend (they differ rarely)
	kind       kind
	null       bool // may be NULL
}

// table is one table Copy moves, with its columns in both backends'
// names. Its rows are read in creation order (SQLite's rowid, an
// identity, or a creation time), else by primary key, so a copy inserts
// them in the order they were made: rows whose order is their meaning, a
// game's branches, keep it, and SQLite's rowids follow the original's.
type table struct {
	name      string
	store     string // the component owning it, as in hearth_schema
	cols      []column
	sqliteKey string // ORDER BY on SQLite
	pgKey     string // ORDER BY on PostgreSQL
	// identity is PostgreSQL's GENERATED ALWAYS AS IDENTITY column whose
	// values are copied as they are (other rows point at them, or URLs
	// name them); its sequence is moved past them afterwards.
	identity string
	// sqliteSkip and pgSkip leave out rows the target keeps itself.
	sqliteSkip, pgSkip string
	// pgComputed are columns PostgreSQL derives from the copied ones in
	// the INSERT (name and expression over $name placeholders).
	pgComputed [][2]string
}

func c(name string, k kind) column       { return column{sqlite: name, pg: name, kind: k} }
func cNull(name string, k kind) column   { return column{sqlite: name, pg: name, kind: k, null: true} }
func c2(sq, pg string, k kind) column    { return column{sqlite: sq, pg: pg, kind: k} }
func pk(cols ...string) (string, string) { s := strings.Join(cols, ", "); return s, s }

// tables is every table Copy moves, in an order that satisfies foreign
// keys, grouped by the store owning it. Derived data is not here: the
// target's own triggers and expressions rebuild it (SQLite's full-text
// tables, lore_keys, the change logs and the index generation;
// PostgreSQL's tsvector columns).
func tables() []*table {
	var ts []*table
	add := func(t *table) {
		if t.sqliteKey == "" {
			t.sqliteKey, t.pgKey = pk(t.cols[0].sqlite)
		}
		ts = append(ts, t)
	}

	// store: games.
	add(&table{name: "sessions", sqliteKey: "rowid", pgKey: "created_at, id", store: "store", cols: []column{
		c("id", kText), c("name", kText), c("campaign", kText), c("campaign_path", kText), c("seed", kInt),
		cNull("config", kBlob), c("branch_id", kText), c("head", kInt), c("created_at", kInt), c("updated_at", kInt)}})
	add(&table{name: "branches", store: "store", sqliteKey: "rowid", pgKey: "seq", cols: []column{
		c("id", kText), c("session_id", kText), c("name", kText), cNull("parent_id", kText), c("fork_turn", kInt),
		c("tip", kInt), c("created_at", kInt), c("description", kText), c("canonical", kBool)}})
	turnKey, _ := pk("branch_id", "number")
	add(&table{name: "turns", store: "store", sqliteKey: turnKey, pgKey: turnKey, cols: []column{
		c("branch_id", kText), c("number", kInt), c("actor", kText), c("input", kText), cNull("intents", kBlob),
		cNull("effects", kBlob), cNull("rolls", kBlob), cNull("passes", kBlob), c("narrative", kText),
		cNull("rng_state", kBlob), cNull("timings", kBlob), c("created_at", kInt), c("controller", kText)}})
	snapKey, _ := pk("branch_id", "turn")
	add(&table{name: "snapshots", store: "store", sqliteKey: snapKey, pgKey: snapKey, cols: []column{
		c("branch_id", kText), c("turn", kInt), c("state", kBlob), cNull("rng_state", kBlob)}})
	add(&table{name: "scene_lore", store: "store", sqliteKey: snapKey, pgKey: snapKey, cols: []column{
		c("branch_id", kText), c("turn", kInt), c("scene", kInt), c("lore", kBlob), c("created_at", kInt)}})
	epKey, _ := pk("session_id", "number")
	add(&table{name: "episodes", store: "store", sqliteKey: epKey, pgKey: epKey, cols: []column{
		c("session_id", kText), c("number", kInt), c("branch_id", kText), c("first_turn", kInt), c("last_turn", kInt),
		c("started_at", kInt), c("ended_at", kInt), c("recap", kText), c("summary", kText), cNull("lore", kBlob)}})
	add(&table{name: "turn_flags", store: "store", identity: "id", cols: []column{
		c("id", kInt), c("session_id", kText), c("branch_id", kText), c("turn", kInt), c("by_user", kText),
		c("reason", kText), c("created_at", kInt)}})

	// images: scene illustrations, with their games.
	add(&table{name: "scene_images", sqliteKey: "rowid", pgKey: "created_at, id", store: "images", cols: []column{
		c("id", kText), c("session_id", kText), c("branch", kText), c("turn", kInt), c("prompt", kText),
		c("provider", kText), c("model", kText), c("mode", kText), c("created_by", kText), c("created_at", kInt),
		c("png", kBlob)}})

	// narrative: memory.
	add(&table{name: "narrative_events", store: "narrative", identity: "id", cols: []column{
		c("id", kInt), c("playthrough", kText), c("session", kText), c("turn", kInt), c("scene", kInt),
		c("game_time", kInt), c("wall_time", kInt), c("summary", kText), c("characters", kList), c("location", kText),
		c("action_type", kText), c("significance", kInt), c("tags", kList), c("kind", kText), cNull("embedding", kVector)}})
	repKey, _ := pk("playthrough", "faction")
	add(&table{name: "narrative_reputation", store: "narrative", sqliteKey: repKey, pgKey: repKey, cols: []column{
		c("playthrough", kText), c("faction", kText), c("score", kFloat), c("game_time", kInt), c("updated_at", kInt)}})
	perKey, _ := pk("playthrough", "npc")
	add(&table{name: "narrative_perception", store: "narrative", sqliteKey: perKey, pgKey: perKey, cols: []column{
		c("playthrough", kText), c("npc", kText), c("faction", kText), c("score", kFloat), c("game_time", kInt),
		c("updated_at", kInt)}})
	add(&table{name: "narrative_standing_history", store: "narrative", identity: "id", cols: []column{
		c("id", kInt), c("playthrough", kText), c("kind", kText), c("subject", kText), c("game_time", kInt),
		c("wall_time", kInt), c("turn", kInt), c2("before", "score_before", kFloat), c("delta", kFloat),
		c2("after", "score_after", kFloat), c("reason", kText)}})
	beatKey, _ := pk("playthrough", "beat")
	add(&table{name: "narrative_beats", store: "narrative", sqliteKey: beatKey, pgKey: beatKey, cols: []column{
		c("playthrough", kText), c("beat", kText), c("status", kText), c("eligible_since", kInt), c("scene", kInt),
		c("reason", kText), c("updated_at", kInt)}})
	statKey, _ := pk("playthrough", "stat")
	add(&table{name: "narrative_stats", store: "narrative", sqliteKey: statKey, pgKey: statKey, cols: []column{
		c("playthrough", kText), c("stat", kText), c("value", kInt), c("updated_at", kInt)}})

	// index: the lore index. lore_keys, full text and the vector log are
	// SQLite's, derived from lore_chunks and lore_vectors; PostgreSQL's
	// change log (lore_changes, and where it starts, lore_meta's
	// changes_from) and its generations' stamps (lore_stamps) are its
	// triggers', and each database keeps its own.
	fileKey, _ := pk("pack", "file")
	add(&table{name: "lore_files", store: "lore", sqliteKey: fileKey, pgKey: fileKey, cols: []column{
		c("pack", kText), c("file", kText), c("hash", kText)}})
	chunks := &table{name: "lore_chunks", store: "lore", identity: "n", cols: []column{
		c("n", kInt), c("id", kText), c("corpus", kText), c("pack", kText), c("file", kText), c("section", kList),
		c("heading", kText), c("page", kInt), c("ordinal", kInt), c("source_type", kText), c("content_type", kText),
		c("entity_type", kText), c("entity_id", kText), c("refs", kList), c("location", kText), c("faction", kText),
		c("threads", kList), c("tags", kList), c("tier", kInt), c("is_player", kBool), c("access", kInt),
		c("text", kText), c("tokens", kInt), c("file_hash", kText), c("turn", kInt)}}
	chunks.pgComputed = [][2]string{{"tsv", pgindex.TSVExpr("$heading", "$tags", "$text")}}
	add(chunks)
	add(&table{name: "lore_vectors", store: "lore", cols: []column{c("chunk", kInt), c("vec", kVector)}})
	add(&table{name: "lore_meta", store: "lore", cols: []column{c("key", kText), c("value", kText)},
		sqliteSkip: "key = 'generation'", pgSkip: "key IN ('generation', 'changes_from')"})

	// library: documents, pages, images and ingest jobs. The images'
	// full text (SQLite's FTS table, PostgreSQL's search column) is
	// derived.
	add(&table{name: "library_documents", sqliteKey: "rowid", pgKey: "created, id", store: "library", cols: []column{
		c("id", kText), c("title", kText), c("format", kText), c("source", kText), c("hash", kText), c("tags", kList),
		c("access", kInt), c("pages", kInt), c("chunks", kInt), c("created", kRFC3339)}})
	pageKey, _ := pk("document", "number")
	add(&table{name: "library_pages", store: "library", sqliteKey: pageKey, pgKey: pageKey, cols: []column{
		c("document", kText), c("number", kInt), c("label", kText), c("text", kText)}})
	add(&table{name: "library_images", store: "library", identity: "id", cols: []column{
		c("id", kInt), c("document", kText), c("page", kInt), c("idx", kInt), c("width", kInt), c("height", kInt),
		c("data", kBlob), c("media_type", kText), c("description", kText), c("context", kText)}})
	add(&table{name: "library_jobs", sqliteKey: "rowid", pgKey: "started, id", store: "library", cols: []column{
		c("id", kText), c("file", kText), c("title", kText), c("tags", kList), c("access", kInt), c("hash", kText),
		c("document", kText), c("status", kText), c("stage", kText), c("error", kText), c("resumes", kInt),
		c("started", kStamp), cNull("finished", kStamp)}})

	// conversations: the assistant's.
	add(&table{name: "assistant_conversations", sqliteKey: "rowid", pgKey: "created_at, id", store: "assistant", cols: []column{
		c("id", kText), c("user_id", kText), c("created_at", kRFC3339), c("updated_at", kRFC3339),
		c("messages", kText), c("metadata", kText)}})

	// keys: users, their keys (hashes as they are) and browser sessions.
	add(&table{name: "auth_users", sqliteKey: "rowid", pgKey: "created_at, id", store: "auth", cols: []column{
		c("id", kText), c("name", kText), c("role", kInt), c("created_at", kInt)}})
	add(&table{name: "auth_keys", sqliteKey: "rowid", pgKey: "created_at, id", store: "auth", cols: []column{
		c("id", kText), c("user_id", kText), c("hash", kText), cNull("check_bits", kInt), c("created_at", kInt),
		cNull("last_used_at", kInt), cNull("revoked_at", kInt)}})
	add(&table{name: "auth_sessions", sqliteKey: "rowid", pgKey: "created_at, id_hash", store: "auth", cols: []column{
		c("id_hash", kText), c("key_id", kText), c("csrf", kText), c("created_at", kInt), c("seen_at", kInt)}})

	// characters: the character library.
	add(&table{name: "characters", sqliteKey: "rowid", pgKey: "created_at, id", store: "characters", cols: []column{
		c("id", kText), c("owner", kText), c("name", kText), c("data", kText), c("created_at", kInt), c("updated_at", kInt)}})
	return ts
}

// derivedSQLite are SQLite tables Copy does not move because the
// target rebuilds them, and PostgreSQL has no counterpart: full text
// (the FTS tables and their shadows), lore_keys (from lore_chunks), the
// vector log (from lore_vectors' triggers), the keys' generation (from
// the users' and keys' triggers) and SQLite's own bookkeeping.
func derivedSQLite(name string) bool {
	switch {
	case name == "lore_keys", name == "lore_vector_log", name == "lore_chunk_log", name == "hearth_schema", name == "auth_generation",
		strings.HasPrefix(name, "sqlite_"), strings.HasPrefix(name, "lore_fts"),
		strings.HasPrefix(name, "library_images_fts"):
		return true
	}
	return false
}

func (t *table) String() string { return fmt.Sprintf("%s (%s)", t.name, t.store) }
