package dice

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Lookup resolves a named reference such as "dex" or
// "player.stats.dexterity".
type Lookup func(name string) (value int, ok bool)

// Result is one roll of an expression, with every die.
type Result struct {
	Notation  string       `json:"notation"`
	Label     string       `json:"label,omitempty"`
	Total     int          `json:"total"`
	Successes *int         `json:"successes,omitempty"`
	Terms     []TermResult `json:"terms"`
}

// TermResult is one term's share of a roll.
type TermResult struct {
	Text  string `json:"text"`
	Sign  int    `json:"sign"`
	Value int    `json:"value"` // signed contribution to Total
	Ref   string `json:"ref,omitempty"`
	Dice  []Die  `json:"dice,omitempty"`
}

// Die is one die rolled.
type Die struct {
	Sides    int  `json:"sides"`
	Value    int  `json:"value"`
	Dropped  bool `json:"dropped,omitempty"`
	Exploded bool `json:"exploded,omitempty"`
	Rerolled bool `json:"rerolled,omitempty"`
	Success  bool `json:"success,omitempty"`
}

// Roll parses notation and rolls it.
func Roll(r *rand.Rand, notation string, lookup Lookup) (Result, error) {
	e, err := Parse(notation)
	if err != nil {
		return Result{}, err
	}
	return e.Roll(r, lookup)
}

// Roll rolls the expression with r, resolving references through lookup
// (which may be nil when there are none).
func (e *Expr) Roll(r *rand.Rand, lookup Lookup) (Result, error) {
	res := Result{Notation: e.String(), Label: e.label, Terms: make([]TermResult, 0, len(e.terms))}
	if e.label != "" {
		res.Notation = strings.TrimSuffix(res.Notation, " # "+e.label)
	}
	successes, counting := 0, false
	for _, t := range e.terms {
		tr := TermResult{Text: t.text(), Sign: t.sign}
		switch t.kind {
		case kindConst:
			tr.Value = t.sign * t.n
		case kindRef:
			if lookup == nil {
				return Result{}, &Error{Notation: e.src, Pos: t.pos + 1, Msg: fmt.Sprintf("%q needs a value, but nothing to look it up in was given", t.ref)}
			}
			v, ok := lookup(t.ref)
			if !ok {
				return Result{}, &Error{Notation: e.src, Pos: t.pos + 1, Msg: fmt.Sprintf("unknown name %q", t.ref)}
			}
			tr.Ref, tr.Value = t.ref, t.sign*v
		case kindDice:
			dice, value, succ := t.roll(r)
			tr.Dice, tr.Value = dice, t.sign*value
			if t.success != nil {
				counting = true
				successes += t.sign * succ
			}
		}
		res.Total += tr.Value
		res.Terms = append(res.Terms, tr)
	}
	if counting {
		res.Successes = &successes
	}
	return res, nil
}

// roll rolls one dice term: the dice, the term's unsigned value, and the
// number of successes.
func (t term) roll(r *rand.Rand) ([]Die, int, int) {
	face := func() int {
		switch {
		case t.fate:
			return r.IntN(3) - 1
		case t.d66:
			return (r.IntN(6)+1)*10 + r.IntN(6) + 1
		}
		return r.IntN(t.sides) + 1
	}
	dice := make([]Die, 0, t.n)
	explosions := 0
	for range t.n {
		d := Die{Sides: t.sides, Value: face()}
		if t.reroll != nil && t.reroll.match(d.Value) {
			d.Rerolled = true
			dice = append(dice, d)
			d = Die{Sides: t.sides, Value: face()}
		}
		for t.explode != nil && t.explode.match(d.Value) && explosions < MaxExplosions {
			d.Exploded = true
			dice = append(dice, d)
			explosions++
			d = Die{Sides: t.sides, Value: face()}
		}
		dice = append(dice, d)
	}
	// Keep or drop among the dice that count (not the rerolled ones).
	if t.keep != "" {
		var live []int
		for i, d := range dice {
			if !d.Rerolled {
				live = append(live, i)
			}
		}
		// Sort indexes by value, stable, so ties drop the later die.
		slices.SortStableFunc(live, func(a, b int) int { return dice[a].Value - dice[b].Value })
		var drop []int
		switch t.keep {
		case "kh":
			drop = live[:max(0, len(live)-t.keepN)]
		case "kl":
			drop = live[min(t.keepN, len(live)):]
		case "dl":
			drop = live[:min(t.keepN, len(live))]
		case "dh":
			drop = live[max(0, len(live)-t.keepN):]
		}
		for _, i := range drop {
			dice[i].Dropped = true
		}
	}
	value, succ := 0, 0
	for i := range dice {
		d := &dice[i]
		if d.Rerolled || d.Dropped {
			continue
		}
		if t.success != nil {
			if t.success.match(d.Value) {
				d.Success = true
				succ++
			}
			continue
		}
		value += d.Value
	}
	if t.success != nil {
		value = succ
	}
	return dice, value, succ
}

// Natural returns the face of the first kept die of the first dice term —
// the "natural" roll a d20 system reads for criticals.
func (r Result) Natural() (int, bool) {
	for _, t := range r.Terms {
		for _, d := range t.Dice {
			if !d.Dropped && !d.Rerolled {
				return d.Value, true
			}
		}
		if len(t.Dice) > 0 {
			return 0, false
		}
	}
	return 0, false
}

// String renders the roll for people: "4d6kh3 [6, 5, 3, ~1~] = 14".
func (r Result) String() string {
	var b strings.Builder
	b.WriteString(r.Notation)
	for _, t := range r.Terms {
		if len(t.Dice) == 0 {
			if t.Ref != "" {
				fmt.Fprintf(&b, " (%s %+d)", t.Ref, t.Value)
			}
			continue
		}
		b.WriteString(" [")
		for i, d := range t.Dice {
			if i > 0 {
				b.WriteString(", ")
			}
			v := strconv.Itoa(d.Value)
			if d.Sides == 3 && d.Value >= 0 { // Fate
				v = map[int]string{0: "0", 1: "+"}[d.Value]
			} else if d.Sides == 3 {
				v = "-"
			}
			switch {
			case d.Dropped || d.Rerolled:
				v = "~" + v + "~"
			case d.Exploded:
				v += "!"
			case d.Success:
				v += "*"
			}
			b.WriteString(v)
		}
		b.WriteString("]")
	}
	if r.Successes != nil {
		fmt.Fprintf(&b, " = %d (%d successes)", r.Total, *r.Successes)
	} else {
		fmt.Fprintf(&b, " = %d", r.Total)
	}
	if r.Label != "" {
		fmt.Fprintf(&b, " — %s", r.Label)
	}
	return b.String()
}
