package world

import (
	"slices"
	"strings"
	"unicode"
)

// Situation is what one turn did, as a relevance check for free-text
// consequence triggers reads it.
type Situation struct {
	// Input is the player's words.
	Input string `json:"input,omitempty"`
	// Location is where the acting character is at the end of the turn.
	Location string `json:"location,omitempty"`
	// Entered lists the locations the acting character entered.
	Entered []string `json:"entered,omitempty"`
	// Present lists the characters at Location, the actor excepted.
	Present []string `json:"present,omitempty"`
	// Touched lists the entities the turn acted on: characters talked to,
	// attacked or met on arrival, items taken, given or used.
	Touched []string `json:"touched,omitempty"`
	// Events are the turn's outcomes in words, in order.
	Events []string `json:"events,omitempty"`
}

// PendingTriggers returns the consequences waiting on a trigger in words
// alone (no On condition the rules can check), in ID order: the ones a
// relevance check decides.
func (s *State) PendingTriggers() []*Consequence {
	var out []*Consequence
	for _, id := range SortedKeys(s.Consequences) {
		if c := s.Consequences[id]; !c.Triggered && c.On == "" && strings.TrimSpace(c.Trigger) != "" {
			out = append(out, c)
		}
	}
	return out
}

// MatchTrigger is the offline relevance check of a free-text trigger: it
// finds the places, characters and items the trigger names and fires when
// the situation has them all — the place is where the player is, the
// character is present or acted on, the item acted on or carried — and
// this turn brought at least one of them in (entered, met, acted on), so
// a standing situation fires once, when it arises. The consequence's
// Target, if it is one of them, counts as named. A trigger naming no
// entity fires when all its content words are in the player's words or
// the turn's events. The reason says what matched.
func (s *State) MatchTrigger(c *Consequence, sit Situation) (bool, string) {
	if c.At != "" && sit.Location != c.At {
		return false, ""
	}
	trigger := " " + normalise(c.Trigger) + " "
	refs := s.namedIn(trigger)
	if t := c.Target; t != "" && !slices.Contains(refs, t) &&
		(s.Locations[t] != nil || s.Items[t] != nil || (s.Characters[t] != nil && t != s.Player)) {
		refs = append(refs, t) // a target named by ID counts as named
	}
	if len(refs) == 0 {
		return wordsMatch(trigger, normalise(sit.Input+" "+strings.Join(sit.Events, " ")))
	}
	pc := s.PC()
	arose := false
	var why []string
	for _, r := range refs {
		switch {
		case s.Locations[r] != nil:
			if sit.Location != r {
				return false, ""
			}
			arose = arose || slices.Contains(sit.Entered, r)
			why = append(why, "at "+s.Locations[r].Name)
		case s.Characters[r] != nil:
			touched := slices.Contains(sit.Touched, r)
			if !touched && !slices.Contains(sit.Present, r) {
				return false, ""
			}
			arose = arose || touched
			why = append(why, "with "+s.Characters[r].Name)
		case s.Items[r] != nil:
			touched := slices.Contains(sit.Touched, r)
			if !touched && (pc == nil || pc.Inventory[r] == 0) {
				return false, ""
			}
			arose = arose || touched
			why = append(why, s.Items[r].Name)
		}
	}
	if !arose {
		return false, ""
	}
	return true, strings.Join(why, ", ")
}

// namedIn lists the locations, characters (the player's excepted) and
// items whose ID, name or an alias the normalised text names as whole
// words, in ID order within each kind. A name inside a longer one named
// ("lantern" in "the drowned lantern") does not count.
func (s *State) namedIn(text string) []string {
	type ref struct{ id, phrase string }
	var refs []ref
	find := func(id, name string, aliases []string) {
		best := ""
		for _, n := range append([]string{id, name}, aliases...) {
			if n := normalise(n); n != "" && len(n) > len(best) && strings.Contains(text, " "+n+" ") {
				best = n
			}
		}
		if best != "" {
			refs = append(refs, ref{id, best})
		}
	}
	for _, id := range SortedKeys(s.Locations) {
		find(id, s.Locations[id].Name, s.Locations[id].Aliases)
	}
	for _, id := range SortedKeys(s.Characters) {
		if id != s.Player {
			find(id, s.Characters[id].Name, s.Characters[id].Aliases)
		}
	}
	for _, id := range SortedKeys(s.Items) {
		find(id, s.Items[id].Name, s.Items[id].Aliases)
	}
	var out []string
	for _, r := range refs {
		inner := slices.ContainsFunc(refs, func(o ref) bool {
			return len(o.phrase) > len(r.phrase) && strings.Contains(" "+o.phrase+" ", " "+r.phrase+" ")
		})
		if !inner {
			out = append(out, r.id)
		}
	}
	return out
}

// wordsMatch fires when every content word of the trigger (a plural or
// -ed, -ing form counting as its stem) is in text.
func wordsMatch(trigger, text string) (bool, string) {
	have := map[string]bool{}
	for _, w := range strings.Fields(text) {
		have[stem(w)] = true
	}
	var want []string
	for _, w := range strings.Fields(trigger) {
		if len(w) > 3 && !stopWords[w] {
			want = append(want, w)
		}
	}
	if len(want) == 0 {
		return false, ""
	}
	for _, w := range want {
		if !have[stem(w)] {
			return false, ""
		}
	}
	return true, "words: " + strings.Join(want, ", ")
}

// stopWords are words a trigger uses to describe, not to name.
var stopWords = map[string]bool{
	"player": true, "players": true, "party": true, "when": true, "whenever": true, "after": true, "before": true,
	"with": true, "into": true, "from": true, "that": true, "this": true, "there": true, "their": true,
	"they": true, "them": true, "then": true, "again": true, "first": true, "next": true, "time": true,
	"someone": true, "something": true, "anyone": true, "about": true, "have": true, "has": true,
	"were": true, "will": true, "does": true, "some": true, "once": true, "back": true, "returns": true,
	"return": true, "goes": true, "comes": true, "enters": true, "arrives": true, "character": true,
}

func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// normalise lower-cases text and turns everything but letters and digits
// into single spaces, so names match as whole words ("lantern_lens" and
// "Lantern-lens" both read "lantern lens").
func normalise(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}
