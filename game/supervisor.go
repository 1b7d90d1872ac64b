package game

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/world"
)

// Supervisor routes a party's turns (seed 002's supervisor): in combat
// the party members act in initiative order; otherwise the members the
// DM's narration addresses by name act next, in order of mention, and
// else the party goes round in its order after the member who acted last.
// It keeps only the queue of members addressed and not yet played, so a
// supervisor created anew (a server restart) still goes round correctly.
// The zero value is ready for use; it is not safe for concurrent use.
type Supervisor struct {
	queue []string
}

// Observe takes in a committed turn: actor is who played it (a member's
// character, or DM), narration what the DM said. Members it addresses
// replace those still waiting from an earlier narration.
func (sv *Supervisor) Observe(w *world.State, actor, narration string) {
	sv.queue = slices.DeleteFunc(sv.queue, func(id string) bool { return id == actor })
	if a := slices.DeleteFunc(Addressed(w, narration), func(id string) bool { return id == actor }); len(a) > 0 {
		sv.queue = a
	}
}

// Next is the member who acts next among those can allows (an agent
// plays them, they are alive …), or false when none may.
func (sv *Supervisor) Next(w *world.State, can func(world.PartyMember) bool) (world.PartyMember, bool) {
	members := w.Members()
	byID := func(id string) (world.PartyMember, bool) {
		i := slices.IndexFunc(members, func(m world.PartyMember) bool { return m.Character == id })
		if i < 0 || !can(members[i]) {
			return world.PartyMember{}, false
		}
		return members[i], true
	}
	if w.Combat != nil {
		// Initiative order: the next party combatant after the actor. The
		// rules play the enemies in between as reactions.
		order := w.Combat.Order
		at := slices.IndexFunc(order, func(c world.Combatant) bool { return c.ID == w.Player })
		for i := 1; i <= len(order); i++ {
			if m, ok := byID(order[(at+i+len(order))%len(order)].ID); ok {
				return m, true
			}
		}
	}
	for len(sv.queue) > 0 {
		id := sv.queue[0]
		sv.queue = sv.queue[1:]
		if m, ok := byID(id); ok {
			return m, true
		}
	}
	at := slices.IndexFunc(members, func(m world.PartyMember) bool { return m.Character == w.Player })
	for i := 1; i <= len(members); i++ {
		if m := members[(at+i+len(members))%len(members)]; can(m) {
			return m, true
		}
	}
	return world.PartyMember{}, false
}

// Addressed lists the party members narration speaks to by name, in order
// of first mention. Speaking to is vocative: the name (or its first word)
// opens a sentence and is followed by a comma, colon, ! or ? ("Oona, what
// do you do?"), or closes one after a comma ("What now, Pim?"). A name
// merely mentioned ("Bram stands guard") addresses nobody.
func Addressed(w *world.State, narration string) []string {
	type hit struct {
		id string
		at int
	}
	var hits []hit
	for _, m := range w.Members() {
		c := w.Characters[m.Character]
		if c == nil {
			continue
		}
		first := -1
		for _, name := range callNames(c) {
			q := regexp.QuoteMeta(name)
			re := regexp.MustCompile(`(?i)(?:^|[.!?…"“\n]\s*)(` + q + `)\s*[,:!?—]|,\s*(` + q + `)\s*[.!?…]`)
			for _, loc := range re.FindAllStringSubmatchIndex(narration, -1) {
				at := loc[2]
				if at < 0 {
					at = loc[4]
				}
				if first < 0 || at < first {
					first = at
				}
			}
		}
		if first >= 0 {
			hits = append(hits, hit{m.Character, first})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.at, b.at) })
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.id
	}
	return out
}

// callNames are how the DM may call a character: its name and the first
// word of it.
func callNames(c *world.Character) []string {
	names := []string{c.Name}
	if f := strings.Fields(c.Name); len(f) > 1 && len(f[0]) > 2 {
		names = append(names, f[0])
	}
	return slices.DeleteFunc(names, func(s string) bool { return strings.TrimSpace(s) == "" })
}
