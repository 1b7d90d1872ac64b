package offlinegm

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/spell"
	"github.com/hearth-rpg/hearth/world"
)

var (
	castVerb = regexp.MustCompile(`^(?:cast|casts|invoke|conjure|channel|use the spell|use spell)\s+(?:the spell\s+|a\s+|an\s+)?(.+)$`)
	// "at 2nd level", "with a 3rd-level slot", "using a level 2 slot"
	slotLevel = regexp.MustCompile(`\s*(?:,\s*)?(?:at|with|using)\s+(?:a\s+|my\s+)?(?:(\d)(?:st|nd|rd|th)[- ]level|level\s+(\d))(?:\s+(?:spell\s+)?slot)?`)
	and       = regexp.MustCompile(`\s*(?:,\s*and\s+|,\s*|\s+and\s+)`)
	// Words that join a spell to whom it is aimed at.
	aimWords = []string{"at", "on", "upon", "against", "onto", "into", "toward", "towards"}
)

// cast reads "cast magic missile at the wolf", "I cast cure wounds on
// Bram", "cast shield" and, for a spell that hurts, its bare name: "fire
// bolt the goblin". An unknown spell's name is passed on as said, so the
// rules can reject it by name without spending the turn.
func cast(w *world.State, c string) (rules.Interpretation, bool) {
	book, _ := spell.SRD() // nil on error: every spell is then passed on as said
	if m := castVerb.FindStringSubmatch(c); m != nil {
		return one(castIntent(book, m[1])), true
	}
	if w == nil || w.System != world.SystemD20 || book == nil {
		return rules.Interpretation{}, false
	}
	s, rest, ok := book.Prefix(c)
	if !ok || (s.Damage == "" && len(s.Conditions) == 0) {
		return rules.Interpretation{}, false
	}
	// A bare spell name must aim at someone present, so "light the lamp"
	// and "knock on the door" stay what they were.
	target := strings.TrimSpace(rest)
	for _, a := range aimWords {
		target = strings.TrimPrefix(target, a+" ")
	}
	if target == "" {
		if w.Combat == nil {
			return rules.Interpretation{}, false
		}
		return one(rules.CastSpell{Spell: s.Name}), true
	}
	if _, err := rules.Present(w, target); err != nil {
		return rules.Interpretation{}, false
	}
	return one(rules.CastSpell{Spell: s.Name, Targets: []string{target}}), true
}

// castIntent splits "magic missile at 2nd level at the wolf" into the
// spell, its slot level and its target.
func castIntent(book *spell.Book, rest string) rules.CastSpell {
	var in rules.CastSpell
	if m := slotLevel.FindStringSubmatch(rest); m != nil {
		in.SlotLevel, _ = strconv.Atoi(m[1] + m[2])
		rest = strings.TrimSpace(strings.Replace(rest, m[0], " ", 1))
		rest = strings.Join(strings.Fields(rest), " ")
	}
	name, target := rest, ""
	if s, after, ok := book.Prefix(rest); ok {
		name, target = s.Name, after
	} else {
		for _, a := range aimWords {
			if n, t, ok := cut(rest, a); ok {
				name, target = n, " "+a+" "+t
				break
			}
		}
	}
	target = strings.TrimSpace(target)
	for _, a := range aimWords {
		target = strings.TrimPrefix(target, a+" ")
	}
	in.Spell = strings.TrimSpace(name)
	if target != "" {
		in.Targets = splitTargets(target)
	}
	return in
}

// splitTargets reads "the goblin and the wolf" as two targets.
func splitTargets(s string) []string {
	var out []string
	for _, p := range and.Split(s, -1) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
