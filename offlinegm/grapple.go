package offlinegm

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

var (
	grappleVerb = regexp.MustCompile(`^(?:grapple|grab hold of|wrestle|tackle|pin|hold down|restrain|put (?:.+) in a headlock) ?(.*)$`)
	shoveVerb   = regexp.MustCompile(`^(?:shove|push|knock|trip|topple|bowl|barge|shoulder[- ]charge) (.+?)(?: (?:over|down|prone|to the ground|off (?:his|her|their|its) feet|flat|backwards?|away))*$`)
	letGo       = regexp.MustCompile(`^(?:let go|let (.+) go|loosen (?:my|your) (?:grip|hold)|release (?:my|your) (?:grip|hold))(?: (?:of|on) (.+))?$`)
	releaseWho  = regexp.MustCompile(`^(?:release|drop|free|unhand) (.+)$`)
	breakFree   = regexp.MustCompile(`^(?:break free|break loose|wriggle free|struggle free|pull free|twist free|get free|break (?:the|their|his|her|its) (?:grip|hold|grapple)|escape (?:the|their|his|her|its) (?:grip|hold|grapple)|escape the grapple|slip (?:the|their|his|her|its) grip)(?: (?:of|from) (.+))?$`)
)

// wrestle reads a grapple, a shove or breaking free (5e contests); ok is
// false when c is none of them, or pushes a thing rather than someone.
func wrestle(w *world.State, c string) (rules.Interpretation, bool) {
	if m := letGo.FindStringSubmatch(c); m != nil {
		return one(rules.Grapple{Maneuver: "release", Target: cmpOr(m[1], m[2])}), true
	}
	// "release Rook" lets go of whom the player holds; "drop the lamp"
	// and "free the bird" stay what they were.
	if m := releaseWho.FindStringSubmatch(c); m != nil && w != nil && isCreature(w, m[1]) {
		if ch, err := rules.Present(w, m[1]); err == nil && ch.GrappledBy == w.Player && ch.HasCondition("grappled") {
			return one(rules.Grapple{Maneuver: "release", Target: m[1]}), true
		}
	}
	if m := breakFree.FindStringSubmatch(c); m != nil {
		return one(rules.Grapple{Maneuver: "escape", Target: m[1]}), true
	}
	if m := shoveVerb.FindStringSubmatch(c); m != nil {
		who := m[1]
		if !isCreature(w, who) {
			return rules.Interpretation{}, false
		}
		return laysHands(w, rules.Grapple{Target: who, Maneuver: "shove"}, "Shove"), true
	}
	if m := grappleVerb.FindStringSubmatch(c); m != nil {
		who := m[1]
		if strings.HasPrefix(c, "put ") {
			who = strings.TrimSuffix(strings.TrimPrefix(c, "put "), " in a headlock")
		}
		if who == "" {
			return grappleWhom(w), true
		}
		if w != nil && !isCreature(w, who) {
			// "wrestle the wheel": strength against a thing.
			return one(rules.Check{Skill: "athletics", DC: 12, Reason: voice(w, c)}), true
		}
		return laysHands(w, rules.Grapple{Target: who}, "Grapple"), true
	}
	return rules.Interpretation{}, false
}

// isCreature reports whether ref is someone present other than the
// player: a person or a beast.
func isCreature(w *world.State, ref string) bool {
	if w == nil || ref == "" {
		return false
	}
	ch, err := rules.Present(w, ref)
	return err == nil && ch.ID != w.Player
}

// laysHands asks first, as an attack does, before grabbing someone who is
// not hostile.
func laysHands(w *world.State, in rules.Grapple, verb string) rules.Interpretation {
	out := one(in)
	if w != nil && w.Combat == nil {
		if ch, err := rules.Present(w, in.Target); err == nil && !ch.Hostile && ch.Alive() && !ch.HasCondition("dead") {
			out.Confirm = fmt.Sprintf("%s is not hostile. %s anyway?", ch.Name, verb)
		}
	}
	return out
}

// grappleWhom picks the one foe present, or asks which.
func grappleWhom(w *world.State) rules.Interpretation {
	hostile, _ := living(w)
	switch len(hostile) {
	case 0:
		return reply("There is no one here to grapple. (Say who: grapple Rook.)")
	case 1:
		return one(rules.Grapple{Target: hostile[0].Name})
	}
	return reply("Grapple whom? " + names(hostile, "or") + ".")
}
