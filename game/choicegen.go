package game

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// ContextChoice is one option of choice-based play that the player character's
// own story suggests (seed 001 §4.2.1, contextual factors): a memory
// shared with someone present, how they or their faction regard the
// player, a stat that opens a way. Input is what is played when it is
// picked; DrawsOn names what suggested it ("memory", "perception",
// "reputation", "stat:charisma").
type ContextChoice struct {
	Text    string `json:"text"`
	Input   string `json:"input"`
	DrawsOn string `json:"draws_on"`
	NPC     string `json:"npc,omitempty"`
	Stat    string `json:"stat,omitempty"`
	Memory  int64  `json:"memory,omitempty"` // the memory event it recalls
}

// Thresholds of the seed's contextual factors: perception above 30 opens
// cooperation, below -30 hides friendly options; a stat above 15 opens its
// option, below 8 marks persuasion unlikely (d20 scores; other systems go
// by the modifier the score gives).
const (
	cooperateAt  = 30
	hideFriendly = -30
	goodRep      = 30
	highStat     = 15
	lowStat      = 8
)

// statOptions are the options a high stat opens; %s is the place's name.
var statOptions = []struct{ stat, text, input string }{
	{"dexterity", "Slip about %s unseen, searching as you go", "search"},
	{"wisdom", "Read %s closely for what others miss", "search"},
	{"intelligence", "Work out what %s is hiding", "search"},
}

// ContextChoices builds choices from the player character's memories,
// the perception and faction reputation of the people present and the
// character's stats. memories are recalled ones (any order); the result
// depends only on its inputs, in a stable order: memories first, then
// cooperation and reputation, then stats.
func ContextChoices(w *world.State, memories []narrative.Match) []ContextChoice {
	pc := w.PC()
	here := w.Here()
	if pc == nil || here == nil || w.Combat != nil {
		return nil
	}
	var mem, social, stat []ContextChoice
	for _, id := range lore.Present(w) {
		c := w.Characters[id]
		if c == nil || c.Hostile {
			continue
		}
		p := w.Perception(id)
		if p < hideFriendly {
			continue // they want none of it: no friendly option
		}
		if m, ok := sharedMemory(memories, c); ok {
			mem = append(mem, ContextChoice{Text: fmt.Sprintf("Remind %s of earlier: “%s”", c.Name, clause(m.Summary)),
				Input: "talk to " + c.Name, DrawsOn: "memory", NPC: id, Memory: m.ID})
		}
		if p > cooperateAt {
			social = append(social, ContextChoice{Text: "Ask " + c.Name + " for help", Input: "ask " + c.Name + " for help",
				DrawsOn: "perception", NPC: id})
		}
		if f := w.Factions[c.Faction]; f != nil && w.Reputation(f.ID) >= goodRep {
			social = append(social, ContextChoice{Text: fmt.Sprintf("Persuade %s, as a friend of %s", c.Name, cmp.Or(f.Name, f.ID)),
				Input: "persuade " + c.Name, DrawsOn: "reputation", NPC: id, Stat: "charisma"})
		} else if high(w, pc, "charisma") {
			social = append(social, ContextChoice{Text: "Charm " + c.Name + " into telling you more", Input: "persuade " + c.Name,
				DrawsOn: "stat:charisma", NPC: id, Stat: "charisma"})
		}
	}
	for _, o := range statOptions {
		if high(w, pc, o.stat) {
			stat = append(stat, ContextChoice{Text: fmt.Sprintf(o.text, here.Name), Input: o.input, DrawsOn: "stat:" + o.stat, Stat: o.stat})
			break // one is enough: the others say the same
		}
	}
	return slices.Concat(mem, social, stat)
}

// sharedMemory is the most significant memory (then the latest) that
// the NPC took part in and that speaks of them by name: a room they
// merely stood in is not something to remind them of.
func sharedMemory(ms []narrative.Match, c *world.Character) (narrative.Event, bool) {
	first, _, _ := strings.Cut(c.Name, " ")
	var best *narrative.Event
	for i := range ms {
		e := &ms[i].Event
		if !slices.Contains(e.Characters, c.ID) || first == "" || !strings.Contains(strings.ToLower(e.Summary), strings.ToLower(first)) {
			continue
		}
		if best == nil || e.Significance > best.Significance || (e.Significance == best.Significance && e.Turn > best.Turn) {
			best = e
		}
	}
	if best == nil {
		return narrative.Event{}, false
	}
	return *best, true
}

// clause turns a remembered sentence into the tail of an option.
func clause(s string) string {
	s = strings.TrimRight(strings.TrimSpace(s), ".!")
	if r := []rune(s); len(r) > 90 {
		s = strings.TrimSpace(string(r[:90])) + "…"
	}
	return s
}

func score(pc *world.Character, stat string) (int, bool) {
	if v, ok := pc.Abilities[stat]; ok {
		return v, true
	}
	v, ok := pc.Stats[stat]
	return v, ok
}

// high reports a stat that opens options: above 15 on d20; elsewhere a
// modifier of +2 or more.
func high(w *world.State, pc *world.Character, stat string) bool {
	v, ok := score(pc, stat)
	if !ok {
		return false
	}
	if sys, err := rules.NewSystem(w.System); err == nil && w.System != world.SystemD20 && w.System != "" {
		return sys.AbilityModifier(v) >= 2
	}
	return v > highStat
}

// low reports a stat that makes an option unlikely: below 8 on d20;
// elsewhere a negative modifier.
func low(w *world.State, pc *world.Character, stat string) bool {
	v, ok := score(pc, stat)
	if !ok {
		return false
	}
	if sys, err := rules.NewSystem(w.System); err == nil && w.System != world.SystemD20 && w.System != "" {
		return sys.AbilityModifier(v) < 0
	}
	return v < lowStat
}

// Evaluation is what evaluate-choice (seed 001 §4.2.1) says of a picked
// choice: the modifier it brings to the roll it leads to, why, and
// whether it is unlikely to succeed.
type Evaluation struct {
	Modifier int      `json:"modifier"`
	Reasons  []string `json:"reasons,omitempty"`
	Unlikely bool     `json:"unlikely,omitempty"`
	// Callback is the part of Modifier a memory callback brings; the
	// rest (perception) the rules add to a roll themselves.
	Callback int    `json:"callback,omitempty"`
	Reason   string `json:"-"` // the callback's reason
}

// EvaluateChoice rates a choice against the player character: the
// perception tier of the NPC it is aimed at (+1 to +3, -1 to -3), +1 when
// it calls back an episodic memory (a triumph or failure), and, for a
// stat-gated or persuasive choice, a note when the stat is low (the
// stat's own modifier is the rules' and is not added twice).
func EvaluateChoice(w *world.State, c ContextChoice, memories []narrative.Match) Evaluation {
	var ev Evaluation
	sit := narrative.Situation{}
	if c.NPC != "" {
		if n := w.Characters[c.NPC]; n != nil {
			sit.NPC, sit.Perception = n.Name, float64(w.Perception(c.NPC))
		}
	}
	if c.Memory != 0 {
		for _, m := range memories {
			if m.Event.ID == c.Memory {
				// The player chose to call it back: it is relevant.
				m.Score, m.Method = 1, narrative.ByLexical
				sit.Memories = append(sit.Memories, m)
			}
		}
	}
	for _, m := range narrative.Modifiers(sit) {
		ev.Modifier += m.Value
		ev.Reasons = append(ev.Reasons, m.Reason)
		if m.Source == narrative.FromMemory {
			ev.Callback, ev.Reason = m.Value, m.Reason
		}
	}
	if pc := w.PC(); pc != nil && c.Stat != "" && low(w, pc, c.Stat) {
		ev.Unlikely = true
		ev.Reasons = append(ev.Reasons, "low "+c.Stat)
	}
	if ev.Modifier < 0 {
		ev.Unlikely = true
	}
	return ev
}

// PlayerStats is the seed's {player_stats}: the player character's stats
// as a prompt states them, one "name: value" per line, abilities with the
// modifier they give, campaign stats with their range. Hidden stats are
// left out.
func PlayerStats(w *world.State) string {
	pc := w.PC()
	if pc == nil {
		return ""
	}
	var lines []string
	sys, err := rules.NewSystem(w.System)
	for _, id := range world.SortedKeys(pc.Abilities) {
		v := pc.Abilities[id]
		if err == nil {
			lines = append(lines, fmt.Sprintf("%s: %d (%+d)", id, v, sys.AbilityModifier(v)))
		} else {
			lines = append(lines, fmt.Sprintf("%s: %d", id, v))
		}
	}
	for _, id := range world.SortedKeys(pc.Stats) {
		d := w.StatDefs[id]
		switch {
		case d != nil && d.Hidden:
		case d != nil && d.Max > d.Min:
			lines = append(lines, fmt.Sprintf("%s: %d (%d to %d)", cmp.Or(d.Label, id), pc.Stats[id], d.Min, d.Max))
		default:
			lines = append(lines, fmt.Sprintf("%s: %d", id, pc.Stats[id]))
		}
	}
	if pc.MaxHP > 0 {
		lines = append(lines, fmt.Sprintf("hit points: %d of %d", pc.HP, pc.MaxHP))
	}
	return strings.Join(lines, "\n")
}
