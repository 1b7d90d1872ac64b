package retrieve

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
)

// Query is one search.
type Query struct {
	// Text is free text to rank by: a player's question, a rules term.
	Text string
	// Signals, when set, adds the query text BuildQuery makes from the
	// scene, after Text.
	Signals *Signals
	// Filter narrows the chunks considered; its zero value allows all.
	Filter Filter
	// Role is who will read the result; chunks above it are never
	// returned. The zero value is access.Player.
	Role access.Level
	// Budget caps the kept passages' total tokens; 0 means no cap.
	Budget int
	// Limit caps the number of kept passages; 0 means DefaultLimit, and
	// values above MaxLimit are lowered to it.
	Limit int
	// Explain asks for Result.Considered: every passage examined, with
	// the reason each cut one was cut.
	Explain bool
}

// Query size limits: text beyond MaxQueryBytes is an error, and Limit is
// clamped to MaxLimit, so one request cannot make the index do unbounded
// work.
const (
	DefaultLimit  = 10
	MaxLimit      = 1000
	MaxQueryBytes = 16 << 10
)

// FullText returns the text to rank by: Text followed by the text built
// from Signals.
func (q Query) FullText() string {
	if q.Signals == nil {
		return strings.TrimSpace(q.Text)
	}
	return strings.TrimSpace(strings.TrimSpace(q.Text) + "\n" + BuildQuery(*q.Signals))
}

// EffectiveLimit is Limit with its default and cap applied.
func (q Query) EffectiveLimit() int {
	switch {
	case q.Limit <= 0:
		return DefaultLimit
	case q.Limit > MaxLimit:
		return MaxLimit
	}
	return q.Limit
}

// Signals are the structured facts of a scene that a lore query is built
// from (seed 004, "Hybrid retrieval strategy"): where the scene is, who
// is present, which threads are active, what just happened, and what the
// player said. Each is text to search for (names and titles, not ids).
type Signals struct {
	Location string
	Present  []string // names of the entities present
	Threads  []string // active threads' titles and tags
	Recent   string   // a summary of recent events
	Input    string   // the player's words
}

// maxSignalBytes caps each part BuildQuery takes from Signals, so a long
// recap cannot crowd out the location and the names.
const maxSignalBytes = 2 << 10

// BuildQuery makes the query text for a scene: the location, the present
// entities' names, the active threads, the recent events and the
// player's input, one part per line, most specific first. Names and
// threads are deduplicated and sorted, so the same scene gives the same
// text whatever order its lists came in.
func BuildQuery(s Signals) string {
	var parts []string
	add := func(p string) {
		if p = clip(strings.Join(strings.Fields(p), " "), maxSignalBytes); p != "" {
			parts = append(parts, p)
		}
	}
	add(s.Location)
	add(strings.Join(sortedUnique(s.Present), ", "))
	add(strings.Join(sortedUnique(s.Threads), ", "))
	add(s.Recent)
	add(s.Input)
	return strings.Join(parts, "\n")
}

// sortedUnique returns the non-blank strings of in, with runs of spaces
// collapsed, sorted without regard to case and without case-insensitive
// duplicates. Which spelling of a duplicate survives does not depend on
// the order of in.
func sortedUnique(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a), strings.ToLower(b)), cmp.Compare(a, b))
	})
	return slices.CompactFunc(out, strings.EqualFold)
}

// clip cuts s to at most n bytes at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Match says whether a chunk needs any or all of a filter's tags.
type Match int

const (
	Any Match = iota // at least one tag (the default)
	All              // every tag
)

// Filter narrows a search by metadata. Each field left empty allows
// everything; set fields must all hold. Values compare exactly (case and
// spaces count), as the content packages write them.
type Filter struct {
	Packs        []string       // the chunk's pack is one of these
	ExcludePacks []string       // the chunk's pack is none of these
	EntityIDs    []string       // the chunk is about, or mentions, one of these
	Location     string         // the chunk's location is this
	Faction      string         // the chunk's faction is this
	Threads      []string       // the chunk belongs to one of these threads
	ContentTypes []string       // the chunk's content type is one of these
	Tags         []string       // the chunk has any (or, with All, every) one of these tags
	TagMatch     Match          // how Tags match
	Corpora      []chunk.Corpus // the chunk's corpus is one of these (an empty corpus is Lore)
}

// Normalized returns f with empty strings dropped, duplicates removed and
// lists sorted, and with an empty corpus written as chunk.Lore: the form
// backends build their queries from. A list of only empty strings allows
// all.
func (f Filter) Normalized() Filter {
	g := f
	g.Packs = set(f.Packs)
	g.ExcludePacks = set(f.ExcludePacks)
	g.EntityIDs = set(f.EntityIDs)
	g.Threads = set(f.Threads)
	g.ContentTypes = set(f.ContentTypes)
	g.Tags = set(f.Tags)
	g.Corpora = nil
	for _, c := range f.Corpora {
		if c == "" {
			c = chunk.Lore
		}
		if !slices.Contains(g.Corpora, c) {
			g.Corpora = append(g.Corpora, c)
		}
	}
	slices.Sort(g.Corpora)
	return g
}

// IsZero reports whether f allows every chunk.
func (f Filter) IsZero() bool {
	g := f.Normalized()
	return len(g.Packs) == 0 && len(g.ExcludePacks) == 0 && len(g.EntityIDs) == 0 && g.Location == "" && g.Faction == "" &&
		len(g.Threads) == 0 && len(g.ContentTypes) == 0 && len(g.Tags) == 0 && len(g.Corpora) == 0
}

// Match reports whether c passes f. Backends filter in their own query
// language with the same meaning; this is the reference, and what a
// caller uses on passages it scored itself.
func (f Filter) Match(c chunk.Chunk) bool {
	g := f.Normalized()
	corpus := c.Corpus
	if corpus == "" {
		corpus = chunk.Lore
	}
	switch {
	case len(g.Packs) > 0 && !slices.Contains(g.Packs, c.Pack),
		slices.Contains(g.ExcludePacks, c.Pack),
		len(g.ContentTypes) > 0 && !slices.Contains(g.ContentTypes, c.ContentType),
		len(g.Corpora) > 0 && !slices.Contains(g.Corpora, corpus),
		g.Location != "" && c.Location != g.Location,
		g.Faction != "" && c.Faction != g.Faction,
		len(g.Threads) > 0 && !intersects(g.Threads, c.Threads),
		len(g.EntityIDs) > 0 && !slices.Contains(g.EntityIDs, c.EntityID) && !intersects(g.EntityIDs, c.Refs):
		return false
	}
	if len(g.Tags) > 0 {
		if g.TagMatch == All {
			for _, t := range g.Tags {
				if !slices.Contains(c.Tags, t) {
					return false
				}
			}
		} else if !intersects(g.Tags, c.Tags) {
			return false
		}
	}
	return true
}

func intersects(a, b []string) bool {
	for _, x := range b {
		if slices.Contains(a, x) {
			return true
		}
	}
	return false
}

// set drops empty strings and duplicates, and sorts.
func set(in []string) []string {
	var out []string
	for _, s := range in {
		if s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
