package narrative

import "fmt"

// Modifier is one bonus or penalty to a roll, with why, so the rules
// engine can add it to a d20 or 2d6 roll and show it to the player.
type Modifier struct {
	Source string `json:"source"` // "perception" or "memory"
	Value  int    `json:"value"`
	Reason string `json:"reason"`
}

// Modifier sources.
const (
	FromPerception = "perception"
	FromMemory     = "memory"
)

// Situation is what a roll's narrative modifiers depend on.
type Situation struct {
	// NPC is the NPC the action is aimed at ("" for none) and Perception
	// their current opinion of the player, after decay.
	NPC        string
	Perception float64
	// Scale is the roll modifier per perception tier step (the seed's
	// modifierScale; 0 means 1) and Limit caps the perception modifier
	// (0 for none; the 2d6 rules of §7.4 use 1: "±1 for NPC sentiment").
	Scale float64
	Limit int
	// Memories are the memories recalled for this action, e.g. by a
	// Query of its description with Filter.Episodic set. A triumph or
	// failure among them at or above its method's threshold is an
	// episodic memory callback.
	Memories []Match
	// MinScore and MinOverlap override the relevance thresholds for
	// vector and lexical matches (0 means DefaultMinScore and
	// DefaultMinOverlap).
	MinScore, MinOverlap float64
}

// Modifiers returns the narrative modifiers for a roll: the perception
// tier's bonus or penalty when an NPC is involved and is not neutral
// (§4.2.3), and +1 for an episodic memory callback when a relevant triumph
// or failure is remembered (§7.4, §7.6). The callback counts once however
// many memories qualify; the reason names the most relevant.
func Modifiers(s Situation) []Modifier {
	var out []Modifier
	if s.NPC != "" {
		t := TierOf(s.Perception, Scale{})
		if m := t.Modifier(s.Scale, s.Limit); m != 0 {
			out = append(out, Modifier{Source: FromPerception, Value: m,
				Reason: fmt.Sprintf("%s is %s (perception %+.0f)", s.NPC, t, s.Perception)})
		}
	}
	minScore, minOverlap := s.MinScore, s.MinOverlap
	if minScore == 0 {
		minScore = DefaultMinScore
	}
	if minOverlap == 0 {
		minOverlap = DefaultMinOverlap
	}
	var callback *Match
	for i := range s.Memories {
		m := &s.Memories[i]
		if !m.Event.Kind.Episodic() || !m.relevant(minScore, minOverlap) {
			continue
		}
		if callback == nil || compareMatches(m, callback) < 0 {
			callback = m
		}
	}
	if callback != nil {
		out = append(out, Modifier{Source: FromMemory, Value: 1,
			Reason: fmt.Sprintf("remembers a %s: %s (memory %d, relevance %.2f)",
				callback.Event.Kind, truncate(callback.Event.Summary, 120), callback.Event.ID, callback.Score)})
	}
	return out
}

// relevant reports whether a match clears the threshold of its method.
func (m *Match) relevant(minScore, minOverlap float64) bool {
	switch m.Method {
	case ByVector:
		return m.Score >= minScore
	case ByLexical:
		return m.Score >= minOverlap && m.Score > 0
	}
	return false
}

// Total adds the modifiers' values.
func Total(ms []Modifier) int {
	n := 0
	for _, m := range ms {
		n += m.Value
	}
	return n
}
