package narrative

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/hearth-rpg/hearth/world"
)

// Recall defaults. The similarity threshold is the seed's (§4.1.3,
// similarityThreshold 0.7 for all-MiniLM-L6-v2 cosine); the overlap
// threshold keeps lexical matches that share at least a third of the
// query's words.
const (
	DefaultLimit      = 5
	MaxLimit          = 1000
	DefaultMinScore   = 0.7
	DefaultMinOverlap = 0.3
	MaxQueryBytes     = 8 << 10
)

// Method says how a match was scored.
type Method string

// Scoring methods.
const (
	ByVector  Method = "vector"  // cosine similarity of embeddings
	ByLexical Method = "lexical" // share of the query's words found in the summary
	ByFilter  Method = "filter"  // no query: filter matches, most recent first
)

// Query asks for the memories of one playthrough most like Vector (or,
// without a vector, most like Text by shared words), among those that pass
// Filter. Without Vector and Text it lists the filter's matches, most
// recent first.
type Query struct {
	Playthrough string    `json:"playthrough"`
	Text        string    `json:"query,omitempty"`
	Vector      []float32 `json:"-"`
	Limit       int       `json:"limit,omitempty"` // 0 is DefaultLimit
	// MinScore drops vector matches below this cosine similarity; 0 is
	// DefaultMinScore and a negative value keeps everything.
	MinScore float64 `json:"min_score,omitempty"`
	// MinOverlap does the same for lexical matches (0..1).
	MinOverlap float64 `json:"min_overlap,omitempty"`
	Filter     Filter  `json:"filters,omitzero"`
}

// Filter narrows a recall before scoring. Empty fields do not filter.
type Filter struct {
	Session         string         `json:"session,omitempty"`
	Characters      []string       `json:"characters,omitempty"` // any of them took part
	Location        string         `json:"location,omitempty"`
	TagsAny         []string       `json:"tags_any,omitempty"`
	TagsAll         []string       `json:"tags_all,omitempty"`
	MinSignificance int            `json:"min_significance,omitempty"`
	FromTurn        int            `json:"from_turn,omitempty"` // inclusive
	ToTurn          int            `json:"to_turn,omitempty"`   // inclusive; 0 is open
	Since           world.GameTime `json:"since,omitempty"`     // inclusive
	Until           world.GameTime `json:"until,omitempty"`     // inclusive; 0 is open
	Kinds           []Kind         `json:"kinds,omitempty"`     // any of them
	Episodic        bool           `json:"episodic,omitempty"`  // triumphs and failures only
}

// Match is one recalled memory. Event.Embedding is left empty: the
// vectors are large and the caller wants the story, not the numbers.
type Match struct {
	Event  Event   `json:"event"`
	Score  float64 `json:"relevance"`
	Method Method  `json:"method"`
}

// normalize fills defaults and checks limits.
func (q *Query) normalize() error {
	switch {
	case q.Limit < 0 || q.Limit > MaxLimit:
		return fmt.Errorf("recall limit %d: use 1 to %d (0 means %d)", q.Limit, MaxLimit, DefaultLimit)
	case len(q.Text) > MaxQueryBytes:
		return fmt.Errorf("recall query is %d bytes; the limit is %d", len(q.Text), MaxQueryBytes)
	case len(q.Vector) > MaxDimensions:
		return fmt.Errorf("recall vector has %d dimensions; the limit is %d", len(q.Vector), MaxDimensions)
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	if q.MinScore == 0 {
		q.MinScore = DefaultMinScore
	}
	if q.MinOverlap == 0 {
		q.MinOverlap = DefaultMinOverlap
	}
	if q.Vector != nil && !normalized(q.Vector) {
		q.Vector = unit(q.Vector)
		if q.Vector == nil {
			return fmt.Errorf("recall vector is all zeros or not finite: embed the query again")
		}
	}
	return nil
}

// matches reports whether e passes the filter.
func (f *Filter) matches(e *Event) bool {
	switch {
	case f.Session != "" && e.Session != f.Session,
		f.Location != "" && e.Location != f.Location,
		e.Significance < f.MinSignificance,
		e.Turn < f.FromTurn,
		f.ToTurn > 0 && e.Turn > f.ToTurn,
		e.At < f.Since,
		f.Until > 0 && e.At > f.Until,
		f.Episodic && !e.Kind.Episodic(),
		len(f.Kinds) > 0 && !slices.Contains(f.Kinds, e.Kind),
		len(f.Characters) > 0 && !anyIn(f.Characters, e.Characters),
		len(f.TagsAny) > 0 && !anyIn(f.TagsAny, e.Tags):
		return false
	}
	for _, t := range f.TagsAll {
		if !slices.Contains(e.Tags, t) {
			return false
		}
	}
	return true
}

func anyIn(want, have []string) bool {
	for _, w := range want {
		if slices.Contains(have, w) {
			return true
		}
	}
	return false
}

// compareMatches orders matches best first: higher score, then more
// significant, then more recent, then lower ID, so equal scores never
// shuffle between runs.
func compareMatches(a, b *Match) int {
	return cmp.Or(
		cmp.Compare(b.Score, a.Score),
		cmp.Compare(b.Event.Significance, a.Event.Significance),
		cmp.Compare(b.Event.At, a.Event.At),
		cmp.Compare(a.Event.ID, b.Event.ID),
	)
}

// topK keeps the k best matches of ms in order.
func topK(ms []Match, k int) []Match {
	slices.SortFunc(ms, func(a, b Match) int { return compareMatches(&a, &b) })
	if len(ms) > k {
		ms = ms[:k]
	}
	return ms
}

// sortRecent orders matches newest first: later game time, then higher ID.
func sortRecent(ms []Match) {
	slices.SortFunc(ms, func(a, b Match) int {
		return cmp.Or(cmp.Compare(b.Event.At, a.Event.At), cmp.Compare(b.Event.ID, a.Event.ID))
	})
}
