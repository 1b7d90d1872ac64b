package rules

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/hearth-rpg/hearth/world"
)

// Rejection is an intent the rules refused. Its message says what is wrong
// and what would be valid; it is meant for the player and for a model.
type Rejection struct {
	Intent string `json:"intent"`
	Reason string `json:"reason"`
	// Unresolved is set when the intent named something that does not
	// exist or is ambiguous (a model's invented name) rather than asking
	// for something the world refuses (a locked door).
	Unresolved bool `json:"unresolved,omitempty"`
}

func (r *Rejection) Error() string { return r.Reason }

func reject(in Intent, format string, args ...any) error {
	return &Rejection{Intent: in.Type(), Reason: fmt.Sprintf(format, args...)}
}

// unresolved rejects a reference that matches nothing, or too much.
func unresolved(in Intent, format string, args ...any) error {
	return &Rejection{Intent: in.Type(), Reason: fmt.Sprintf(format, args...), Unresolved: true}
}

// named is anything that can be referred to by ID, name or alias.
type named struct {
	id, name string
	aliases  []string
}

// Normalise lower-cases, drops articles and punctuation, so "the Old
// Lighthouse!" matches "old lighthouse".
func Normalise(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	out := f[:0]
	for _, w := range f {
		switch w {
		case "the", "a", "an", "some", "my", "this", "that":
			continue
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

// match finds the one candidate a reference means: exact ID, exact name or
// alias, then a unique word-prefix or substring match. ok is false when
// nothing matches; several matches return them all.
func match(ref string, cands []named) (hit []named) {
	r := Normalise(ref)
	if r == "" {
		return nil
	}
	rid := strings.ReplaceAll(r, " ", "_")
	for _, c := range cands {
		if c.id == ref || c.id == rid || Normalise(c.id) == r {
			return []named{c}
		}
	}
	for _, c := range cands {
		if Normalise(c.name) == r {
			return []named{c}
		}
		for _, a := range c.aliases {
			if Normalise(a) == r {
				return []named{c}
			}
		}
	}
	for _, c := range cands {
		if wordMatch(r, Normalise(c.name)) || anyWordMatch(r, c.aliases) {
			hit = append(hit, c)
		}
	}
	return hit
}

// wordMatch reports whether every word of ref begins a word of name, in order
// or not: "smuggler" finds "Bren the Smuggler", "old light" finds "Old
// Lighthouse".
func wordMatch(ref, name string) bool {
	if ref == "" || name == "" {
		return false
	}
	words := strings.Fields(name)
	for _, rw := range strings.Fields(ref) {
		found := false
		for _, w := range words {
			if strings.HasPrefix(w, rw) || (len(rw) > 3 && strings.HasPrefix(rw, w) && len(w) > 3) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func anyWordMatch(ref string, aliases []string) bool {
	for _, a := range aliases {
		if wordMatch(ref, Normalise(a)) {
			return true
		}
	}
	return false
}

func names(cs []named) string {
	if len(cs) == 0 {
		return "nobody"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.name
	}
	return List(parts, "or")
}

// List joins words as prose: "a", "a or b", "a, b or c".
func List(parts []string, conj string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " " + conj + " " + parts[len(parts)-1]
}

func characterCands(cs []*world.Character) []named {
	out := make([]named, len(cs))
	for i, c := range cs {
		out[i] = named{c.ID, c.Name, c.Aliases}
	}
	return out
}

// present finds a character at the player's location (or the player).
func present(w *world.State, in Intent, ref string) (*world.Character, error) {
	pc := w.PC()
	if ref == "" || pc == nil {
		return pcOrReject(w, in)
	}
	if isSelf(ref) || ref == pc.ID || Normalise(ref) == Normalise(pc.Name) {
		return pc, nil
	}
	here := w.CharactersAt(pc.Location)
	hits := match(ref, characterCands(here))
	switch len(hits) {
	case 1:
		return w.Characters[hits[0].id], nil
	case 0:
		where := locationName(w, pc.Location)
		if len(here) == 0 {
			return nil, unresolved(in, "there is no %q at %s; nobody else is here", ref, where)
		}
		return nil, unresolved(in, "there is no %q at %s; present: %s", ref, where, List(nameList(here), "and"))
	}
	return nil, unresolved(in, "%q could mean %s; say which", ref, names(hits))
}

// anyCharacter finds a character anywhere in the world.
func anyCharacter(w *world.State, in Intent, ref string) (*world.Character, error) {
	if ref == "" || isSelf(ref) {
		return pcOrReject(w, in)
	}
	all := make([]*world.Character, 0, len(w.Characters))
	for _, id := range world.SortedKeys(w.Characters) {
		all = append(all, w.Characters[id])
	}
	hits := match(ref, characterCands(all))
	switch len(hits) {
	case 1:
		return w.Characters[hits[0].id], nil
	case 0:
		return nil, unresolved(in, "no character %q exists; known characters: %s", ref, List(nameList(all), "and"))
	}
	return nil, unresolved(in, "%q could mean %s; say which", ref, names(hits))
}

func pcOrReject(w *world.State, in Intent) (*world.Character, error) {
	if pc := w.PC(); pc != nil {
		return pc, nil
	}
	return nil, reject(in, "the game has no player character")
}

func isSelf(ref string) bool {
	switch Normalise(ref) {
	case "me", "myself", "self", "player", "i", "you", "yourself":
		return true
	}
	return false
}

func nameList(cs []*world.Character) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

func locationName(w *world.State, id string) string {
	if l := w.Locations[id]; l != nil {
		return l.Name
	}
	return id
}

// findLocation finds a location anywhere.
func findLocation(w *world.State, in Intent, ref string) (*world.Location, error) {
	var cands []named
	for _, id := range world.SortedKeys(w.Locations) {
		l := w.Locations[id]
		cands = append(cands, named{l.ID, l.Name, l.Aliases})
	}
	hits := match(ref, cands)
	switch len(hits) {
	case 1:
		return w.Locations[hits[0].id], nil
	case 0:
		var all []string
		for _, c := range cands {
			all = append(all, c.name)
		}
		return nil, unresolved(in, "no location %q exists; known locations: %s", ref, List(all, "and"))
	}
	return nil, unresolved(in, "%q could mean %s; say which", ref, names(hits))
}

// holding finds an item in an inventory (item ID → qty).
func holding(w *world.State, in Intent, inv map[string]int, ref, owner string) (*world.Item, error) {
	var cands []named
	for _, id := range world.SortedKeys(inv) {
		if inv[id] <= 0 {
			continue
		}
		if it := w.Items[id]; it != nil {
			cands = append(cands, named{it.ID, it.Name, it.Aliases})
		}
	}
	hits := match(ref, cands)
	switch len(hits) {
	case 1:
		return w.Items[hits[0].id], nil
	case 0:
		if len(cands) == 0 {
			return nil, unresolved(in, "%s has no %q; %s has nothing", owner, ref, owner)
		}
		held := make([]string, len(cands))
		for i, c := range cands {
			held[i] = c.name
		}
		slices.Sort(held)
		return nil, unresolved(in, "%s has no %q; %s has: %s", owner, ref, owner, List(held, "and"))
	}
	return nil, unresolved(in, "%q could mean %s; say which", ref, names(hits))
}

// visibleExits are the exits the player can see from a location.
func visibleExits(l *world.Location) []world.Exit {
	var out []world.Exit
	for _, e := range l.Exits {
		if !e.Hidden {
			out = append(out, e)
		}
	}
	return out
}

// ExitList describes exits for messages: "north to the Harbour, up to the
// Lantern Room".
func ExitList(w *world.State, l *world.Location) string {
	var parts []string
	for _, e := range visibleExits(l) {
		name := locationName(w, e.To)
		if e.Direction != "" {
			parts = append(parts, e.Direction+" to "+name)
		} else {
			parts = append(parts, name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return List(parts, "and")
}

var directionAliases = map[string]string{
	"n": "north", "s": "south", "e": "east", "w": "west", "u": "up", "d": "down",
	"ne": "northeast", "nw": "northwest", "se": "southeast", "sw": "southwest",
	"upstairs": "up", "downstairs": "down", "in": "inside", "out": "outside",
}

// findExit finds the exit a move means: by direction, by destination name,
// or by the exit's own description.
func findExit(w *world.State, in Intent, from *world.Location, ref string) (world.Exit, error) {
	r := Normalise(ref)
	if d, ok := directionAliases[r]; ok {
		r = d
	}
	exits := visibleExits(from)
	for _, e := range exits {
		if e.Direction != "" && (Normalise(e.Direction) == r || directionAliases[Normalise(e.Direction)] == r) {
			return e, nil
		}
	}
	var cands []named
	for _, e := range exits {
		if l := w.Locations[e.To]; l != nil {
			cands = append(cands, named{l.ID, l.Name, append(append([]string{}, l.Aliases...), e.Description)})
		}
	}
	hits := match(ref, cands)
	if len(hits) == 1 {
		e, _ := from.Exit(hits[0].id)
		return e, nil
	}
	if len(hits) > 1 {
		return world.Exit{}, unresolved(in, "%q could mean %s; say which", ref, names(hits))
	}
	if l, err := findLocation(w, in, ref); err == nil {
		if l.ID == from.ID {
			return world.Exit{}, reject(in, "you are already at %s", l.Name)
		}
		return world.Exit{}, unresolved(in, "%s cannot be reached directly from %s; exits: %s", l.Name, from.Name, ExitList(w, from))
	}
	return world.Exit{}, unresolved(in, "you can't go %q from %s; exits: %s", ref, from.Name, ExitList(w, from))
}

// Slug makes an ID from a name: "Mira the Innkeeper" → "mira_the_innkeeper".
func Slug(name string) string {
	var b strings.Builder
	lastUnderscore := true
	for _, r := range strings.ToLower(name) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
			lastUnderscore = false
		case !lastUnderscore:
			b.WriteByte('_')
			lastUnderscore = true
		}
	}
	s := strings.TrimSuffix(b.String(), "_")
	if s == "" {
		s = "unnamed"
	}
	return s
}

// uniqueID returns base, or base_2, base_3 … whichever is free.
func uniqueID(base string, taken func(string) bool) string {
	if !taken(base) {
		return base
	}
	for i := 2; ; i++ {
		id := fmt.Sprintf("%s_%d", base, i)
		if !taken(id) {
			return id
		}
	}
}

// Present finds a character at the player's location (or the player) the
// way the engine does, for callers such as interpreters that need to know
// who a name means before building an intent.
func Present(w *world.State, ref string) (*world.Character, error) {
	return present(w, Look{}, ref)
}
