package chunk

import (
	"github.com/hearth-rpg/hearth/access"
)

// MaxTokens caps one chunk's text in cl100k tokens (seed 001 §6.2.15).
const MaxTokens = 512

// Corpus separates authored lore from what happened in play, so a query
// can ask for either or both.
type Corpus string

const (
	Lore    Corpus = "lore"    // packs, campaigns and ingested books
	History Corpus = "history" // events and summaries written during play
)

// SourceType says what part of a file a chunk came from. Frontmatter
// states the author's facts and outranks prose about the same entity.
type SourceType string

const (
	Frontmatter SourceType = "frontmatter"
	Prose       SourceType = "prose"
	Field       SourceType = "field" // a field group of a structured (JSON/YAML) file
)

// Chunk is one retrievable passage and everything a query may filter on.
type Chunk struct {
	ID      string   `json:"id"`                // stable: pack/file#ordinal
	Corpus  Corpus   `json:"corpus"`            // lore when empty
	Pack    string   `json:"pack"`              // the content pack or campaign id
	File    string   `json:"file"`              // slash-separated path inside the pack
	Section []string `json:"section,omitempty"` // heading path, outermost first
	Page    int      `json:"page,omitempty"`    // 1-based page for paged documents
	Ordinal int      `json:"ordinal"`           // position within the file

	SourceType  SourceType `json:"source_type"`
	ContentType string     `json:"content_type,omitempty"` // npc, location, rules, spell, …
	EntityType  string     `json:"entity_type,omitempty"`
	EntityID    string     `json:"entity_id,omitempty"` // namespaced pack:entity when from a pack
	Refs        []string   `json:"refs,omitempty"`      // entity ids the text mentions
	Location    string     `json:"location,omitempty"`
	Faction     string     `json:"faction,omitempty"`
	Threads     []string   `json:"threads,omitempty"`
	Tags        []string   `json:"tags,omitempty"`

	Tier     int          `json:"tier"`      // precedence 1 (strongest) … 6 (seed 001 §5.3.1)
	IsPlayer bool         `json:"is_player"` // about the player character
	Access   access.Level `json:"access"`    // who may read it; player when zero

	Text   string `json:"text"`
	Tokens int    `json:"tokens"`

	FileHash string `json:"file_hash,omitempty"` // sha256 of the source file, for incremental indexing
	Turn     int    `json:"turn,omitempty"`      // for history: the turn it records
}

// Heading is the section path joined for display: "Combat › Actions › Dash".
func (c Chunk) Heading() string {
	s := ""
	for i, h := range c.Section {
		if i > 0 {
			s += " › "
		}
		s += h
	}
	return s
}
