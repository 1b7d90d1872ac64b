package offlinegm

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/hearth-rpg/hearth/world"
)

// Agent plays a party member without a model: a deterministic decision
// from the character's sheet, the quests, the scene and what the
// character can see, returned as the words a player would type so that
// the interpreter reads it like any other action. The zero value is ready
// for use.
type Agent struct{}

// NewAgent returns an offline party-member agent.
func NewAgent() *Agent { return &Agent{} }

// Name returns "offline".
func (*Agent) Name() string { return "offline" }

// Decide chooses what member does, in order: drink a healing potion when
// below half hit points, attack a hostile present, talk to the giver of a
// quest on offer who is here, ask a present quest giver about what they
// know, head along an exit toward the place an unfinished objective names,
// search a place that still hides something, pick up what lies here, and
// else explore, preferring places not yet seen. view must be the world as
// the character knows it (world.State.View); it is not changed.
func (*Agent) Decide(ctx context.Context, view *world.State, member world.PartyMember) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	me := view.Characters[member.Character]
	if me == nil {
		return "", fmt.Errorf("offline agent: %q is not in its view of the world", member.Character)
	}
	here := view.Locations[me.Location]
	if here == nil {
		return "", fmt.Errorf("offline agent: %s is nowhere it knows", me.Name)
	}
	present := others(view, me)
	hostile := slices.IndexFunc(present, func(c *world.Character) bool { return c.Hostile && c.Alive() && !c.HasCondition("dead") })

	if me.MaxHP > 0 && me.HP*2 < me.MaxHP {
		if potion := healing(view, me); potion != nil {
			return "drink the " + strings.ToLower(potion.Name), nil
		}
	}
	if hostile >= 0 {
		return "attack the " + strings.ToLower(present[hostile].Name), nil
	}
	quests := openQuests(view)
	for _, q := range quests {
		if q.Status == world.QuestAvailable {
			if g := giver(present, q); g != nil {
				return "talk to " + g.Name, nil
			}
		}
	}
	for _, q := range quests {
		if g := giver(present, q); g != nil && len(g.Topics) > 0 && q.Status == world.QuestActive {
			topics := world.SortedKeys(g.Topics)
			t := topics[(view.Turn+len(member.Character))%len(topics)]
			return "ask " + g.Name + " about " + strings.ReplaceAll(t, "_", " "), nil
		}
	}
	// Strangers who might have work or news: talk to one the character
	// has not heard speak yet (its memory says; being seen is not being
	// spoken to), then ask after what they spoke of while the talk is
	// fresh.
	for _, c := range present {
		if c.Kind == world.NPC && !c.Hostile && c.Alive() && !heard(view, me, c) {
			return "talk to " + c.Name, nil
		}
	}
	for _, c := range present {
		if c.Kind == world.NPC && !c.Hostile && c.Alive() && len(c.Topics) > 0 && view.Turn-c.MentionedTurn <= 2 {
			topics := world.SortedKeys(c.Topics)
			t := topics[(view.Turn+len(member.Character))%len(topics)]
			return "ask " + c.Name + " about " + strings.ReplaceAll(t, "_", " "), nil
		}
	}
	exits := usable(here)
	// The party keeps together: its first member leads the way, the others
	// follow it and work where it is.
	lead := leader(view)
	following := lead != nil && lead.ID != me.ID
	if following && lead.Location != me.Location {
		if step, ok := toward(view, here, map[string]bool{lead.Location: true}); ok {
			return "go " + exitWord(view, step), nil
		}
	}
	for _, q := range quests {
		if q.Status != world.QuestActive {
			continue
		}
		if step, ok := toward(view, here, objectivePlaces(view, q)); ok && step.To != here.ID {
			return "go " + exitWord(view, step), nil
		}
	}
	if slices.ContainsFunc(here.Discoverables, func(d world.Discoverable) bool { return !d.Found }) && view.Turn%3 != 0 {
		return "search", nil
	}
	for _, id := range world.SortedKeys(here.Items) {
		if it := view.Items[id]; it != nil && here.Items[id] > 0 && it.Type != "fixture" {
			return "take the " + strings.ToLower(it.Name), nil
		}
	}
	if len(exits) == 0 {
		return "search", nil
	}
	if following {
		// A follower does not wander off: it keeps watch, or searches.
		if view.Turn%2 == 0 {
			return "search", nil
		}
		return "keep watch", nil
	}
	// The nearest place not yet seen, by the shortest known way.
	unseen := map[string]bool{}
	for id, l := range view.Locations {
		if !l.Visited && id != here.ID {
			unseen[id] = true
		}
	}
	if step, ok := toward(view, here, unseen); ok {
		return "go " + exitWord(view, step), nil
	}
	// Everything near is seen: wander, each member its own way.
	e := exits[(view.Turn+len(member.Character))%len(exits)]
	return "go " + exitWord(view, e), nil
}

// heard reports whether me has spoken with npc, or witnessed someone
// speak with it: its memory holds the talk. Without a memory (a game of
// one) an NPC is known once the story has mentioned it.
func heard(view *world.State, me, npc *world.Character) bool {
	mem := view.Memory[me.ID]
	if len(view.Party) == 0 || mem == nil {
		return npc.MentionedTurn > 0
	}
	name := strings.ToLower(npc.Name)
	said := func(text string) bool {
		text = strings.ToLower(text)
		return strings.Contains(text, "talk to "+name) || strings.Contains(text, name+":") || strings.Contains(text, name+" says")
	}
	if said(mem.Summary) {
		return true
	}
	for _, e := range mem.Recent {
		if said(e.Text) {
			return true
		}
	}
	return false
}

// leader is the party's first member still standing.
func leader(view *world.State) *world.Character {
	for _, m := range view.Party {
		if c := view.Characters[m.Character]; c != nil && c.Alive() {
			return c
		}
	}
	return nil
}

// others are the characters at me's location, by name.
func others(view *world.State, me *world.Character) []*world.Character {
	var out []*world.Character
	for _, id := range world.SortedKeys(view.Characters) {
		c := view.Characters[id]
		if c.ID != me.ID && c.Location == me.Location {
			out = append(out, c)
		}
	}
	return out
}

// healing is a healing consumable the character holds, cheapest name first.
func healing(view *world.State, me *world.Character) *world.Item {
	for _, id := range world.SortedKeys(me.Inventory) {
		it := view.Items[id]
		if it != nil && me.Inventory[id] > 0 && strings.HasPrefix(strings.ToLower(it.Effect), "heal") {
			return it
		}
	}
	return nil
}

// openQuests are the quests not finished, active before available, by id.
func openQuests(view *world.State) []*world.Quest {
	var out []*world.Quest
	for _, id := range world.SortedKeys(view.Quests) {
		if q := view.Quests[id]; q.Status == world.QuestActive || q.Status == world.QuestAvailable {
			out = append(out, q)
		}
	}
	rank := func(q *world.Quest) int {
		if q.Status == world.QuestActive {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(out, func(a, b *world.Quest) int { return cmp.Compare(rank(a), rank(b)) })
	return out
}

func giver(present []*world.Character, q *world.Quest) *world.Character {
	for _, c := range present {
		if c.ID == q.Giver && c.Alive() {
			return c
		}
	}
	return nil
}

// usable are the exits the character can take now.
func usable(l *world.Location) []world.Exit {
	var out []world.Exit
	for _, e := range l.Exits {
		if !e.Hidden && !e.Locked {
			out = append(out, e)
		}
	}
	return out
}

// objectivePlaces are the known locations not yet visited that an
// unfinished objective of q names (by a word of the location's name): a
// place already seen did not finish the objective, so going back there
// would only walk the party in circles.
func objectivePlaces(view *world.State, q *world.Quest) map[string]bool {
	out := map[string]bool{}
	for _, o := range q.Objectives {
		if o.Done {
			continue
		}
		text := " " + strings.ToLower(o.Text) + " "
		for _, id := range world.SortedKeys(view.Locations) {
			if view.Locations[id].Visited {
				continue
			}
			for _, w := range strings.Fields(strings.ToLower(view.Locations[id].Name)) {
				if len(w) > 3 && strings.Contains(text, " "+w+" ") {
					out[id] = true
				}
			}
		}
	}
	return out
}

// toward is the first exit of a shortest known path from here to one of
// the places, breadth first in exit order so the choice is deterministic.
func toward(view *world.State, here *world.Location, places map[string]bool) (world.Exit, bool) {
	if len(places) == 0 || places[here.ID] {
		return world.Exit{}, false
	}
	first := map[string]world.Exit{}
	seen := map[string]bool{here.ID: true}
	queue := []string{here.ID}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		l := view.Locations[at]
		if l == nil {
			continue
		}
		for _, e := range usable(l) {
			if seen[e.To] {
				continue
			}
			seen[e.To] = true
			step := e
			if at != here.ID {
				step = first[at]
			}
			if places[e.To] {
				return step, true
			}
			first[e.To] = step
			queue = append(queue, e.To)
		}
	}
	return world.Exit{}, false
}

// exitWord is how a player names an exit: its direction, else its place.
func exitWord(view *world.State, e world.Exit) string {
	if e.Direction != "" {
		return e.Direction
	}
	if l := view.Locations[e.To]; l != nil {
		return "to the " + strings.ToLower(l.Name)
	}
	return e.To
}

// Suggested is the action a nudge from the table points member to, when
// it names something the character can use now: a character present (talk
// to them, or attack them when hostile), an exit of here (by direction or
// by the place it leads to), or an item lying here (take it). The nudge is
// only read for those names, never played as words. The first nudge that
// names something wins; ok is false when none does.
func (*Agent) Suggested(view *world.State, member world.PartyMember, nudges []string) (action string, ok bool) {
	me := view.Characters[member.Character]
	if me == nil {
		return "", false
	}
	here := view.Locations[me.Location]
	if here == nil {
		return "", false
	}
	for _, n := range nudges {
		text := " " + strings.Join(strings.FieldsFunc(strings.ToLower(n), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
		}), " ") + " "
		names := func(name string, aliases []string) bool {
			for _, a := range append([]string{name}, aliases...) {
				if a = strings.ToLower(strings.TrimSpace(a)); len(a) > 2 && strings.Contains(text, " "+a+" ") {
					return true
				}
			}
			return false
		}
		for _, c := range others(view, me) {
			// People go by their first name too ("Maren" for Maren Vell).
			first := strings.Fields(c.Name + " ?")[0]
			if !c.Alive() || !(names(c.Name, c.Aliases) || (len(first) > 3 && names(first, nil))) {
				continue
			}
			if c.Hostile {
				return "attack the " + strings.ToLower(c.Name), true
			}
			return "talk to " + c.Name, true
		}
		for _, e := range usable(here) {
			l := view.Locations[e.To]
			if (e.Direction != "" && strings.Contains(text, " "+strings.ToLower(e.Direction)+" ")) || (l != nil && names(l.Name, l.Aliases)) {
				return "go " + exitWord(view, e), true
			}
		}
		for _, id := range world.SortedKeys(here.Items) {
			if it := view.Items[id]; it != nil && here.Items[id] > 0 && it.Type != "fixture" && names(it.Name, nil) {
				return "take the " + strings.ToLower(it.Name), true
			}
		}
	}
	return "", false
}
