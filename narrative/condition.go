package narrative

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// View is the little a plot beat needs to read of the game state. The game
// adapts its world state to it; narrative never sees the state itself.
type View interface {
	// Stat returns a stat's value by its key ("health", "npc.owen.trust")
	// and whether the stat exists.
	Stat(key string) (float64, bool)
	Flag(name string) bool
	// Location is where the player is.
	Location() string
	HasItem(id string) bool
	// Reputation and Perception are current values, after decay.
	Reputation(faction string) float64
	Perception(npc string) float64
}

// ConditionKind says what a condition reads.
type ConditionKind string

// Condition kinds. Player choices are recorded as flags.
const (
	CondStat       ConditionKind = "stat"       // a stat compared with Value
	CondFlag       ConditionKind = "flag"       // a story flag is set
	CondLocation   ConditionKind = "location"   // the player is at Key
	CondItem       ConditionKind = "item"       // the player carries Key
	CondReputation ConditionKind = "reputation" // a faction's standing compared with Value
	CondPerception ConditionKind = "perception" // an NPC's perception compared with Value
)

func (k ConditionKind) numeric() bool {
	return k == CondStat || k == CondReputation || k == CondPerception
}

// Op compares a number with a condition's value.
type Op string

// Comparison operators.
const (
	OpGT Op = ">"
	OpGE Op = ">="
	OpLT Op = "<"
	OpLE Op = "<="
	OpEQ Op = "=="
	OpNE Op = "!="
)

func (o Op) holds(have, want float64) bool {
	switch o {
	case OpGT:
		return have > want
	case OpGE:
		return have >= want
	case OpLT:
		return have < want
	case OpLE:
		return have <= want
	case OpEQ:
		return have == want
	case OpNE:
		return have != want
	}
	return false
}

// Condition is one state condition of a plot beat. Numeric kinds compare
// with Op and Value; the others hold when the thing is so, or, with Not,
// when it is not.
type Condition struct {
	Kind  ConditionKind `json:"kind"`
	Key   string        `json:"key"`
	Op    Op            `json:"op,omitempty"`
	Value float64       `json:"value,omitempty"`
	Not   bool          `json:"not,omitempty"`
}

// MaxConditionBytes bounds a condition written as text.
const MaxConditionBytes = 512

// ParseCondition reads the text form of a condition, as campaign authors
// write it:
//
//	stat health >= 40
//	reputation thieves_guild > 30
//	perception owen < -30
//	flag met_owen
//	not flag betrayed_guild   (or: !flag betrayed_guild)
//	location blacksmith_shop
//	item short_sword
func ParseCondition(s string) (Condition, error) {
	if len(s) > MaxConditionBytes {
		return Condition{}, fmt.Errorf("condition is %d bytes; the limit is %d", len(s), MaxConditionBytes)
	}
	f := strings.Fields(s)
	var c Condition
	if len(f) > 0 && (f[0] == "not" || f[0] == "!") {
		c.Not, f = true, f[1:]
	} else if len(f) > 0 && len(f[0]) > 1 && f[0][0] == '!' {
		c.Not, f[0] = true, f[0][1:]
	}
	if len(f) == 0 {
		return c, fmt.Errorf("condition %q is empty: write e.g. \"stat health >= 40\" or \"flag met_owen\"", s)
	}
	c.Kind = ConditionKind(strings.ToLower(f[0]))
	switch {
	case c.Kind.numeric():
		if len(f) != 4 {
			return c, fmt.Errorf("condition %q: write %s KEY OP NUMBER, e.g. \"%s %s >= 30\"", s, c.Kind, c.Kind, exampleKey(c.Kind))
		}
		c.Key, c.Op = f[1], Op(f[2])
		v, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			return c, fmt.Errorf("condition %q: %q is not a number", s, f[3])
		}
		c.Value = v
	case c.Kind == CondFlag || c.Kind == CondLocation || c.Kind == CondItem:
		if len(f) != 2 {
			return c, fmt.Errorf("condition %q: write %s NAME, e.g. \"%s %s\"", s, c.Kind, c.Kind, exampleKey(c.Kind))
		}
		c.Key = f[1]
	default:
		return c, fmt.Errorf("condition %q: unknown kind %q; use stat, reputation, perception, flag, location or item", s, f[0])
	}
	return c, c.Validate()
}

func exampleKey(k ConditionKind) string {
	switch k {
	case CondStat:
		return "health"
	case CondReputation:
		return "thieves_guild"
	case CondPerception:
		return "owen"
	case CondFlag:
		return "met_owen"
	case CondLocation:
		return "blacksmith_shop"
	}
	return "short_sword"
}

// Validate checks a condition built in code or read from JSON.
func (c Condition) Validate() error {
	switch {
	case c.Key == "" || strings.ContainsFunc(c.Key, func(r rune) bool { return r <= ' ' }):
		return fmt.Errorf("%s condition: key %q must be a non-empty name without spaces", c.Kind, c.Key)
	case len(c.Key) > MaxNameBytes:
		return fmt.Errorf("%s condition: key is %d bytes; the limit is %d", c.Kind, len(c.Key), MaxNameBytes)
	case !utf8.ValidString(c.Key):
		return fmt.Errorf("%s condition: key %q is not valid UTF-8", c.Kind, c.Key)
	case c.Kind.numeric():
		if !c.Op.valid() {
			return fmt.Errorf("%s %s: operator %q; use >, >=, <, <=, == or !=", c.Kind, c.Key, c.Op)
		}
		if math.IsNaN(c.Value) || math.IsInf(c.Value, 0) {
			return fmt.Errorf("%s %s: value must be a finite number", c.Kind, c.Key)
		}
	case c.Kind == CondFlag || c.Kind == CondLocation || c.Kind == CondItem:
		if c.Op != "" || c.Value != 0 {
			return fmt.Errorf("%s %s takes no operator or value; use \"not\" to negate it", c.Kind, c.Key)
		}
	default:
		return fmt.Errorf("unknown condition kind %q; use stat, reputation, perception, flag, location or item", c.Kind)
	}
	return nil
}

func (o Op) valid() bool {
	switch o {
	case OpGT, OpGE, OpLT, OpLE, OpEQ, OpNE:
		return true
	}
	return false
}

// String returns the text form ParseCondition reads.
func (c Condition) String() string {
	var b strings.Builder
	if c.Not {
		b.WriteString("not ")
	}
	b.WriteString(string(c.Kind))
	b.WriteByte(' ')
	b.WriteString(c.Key)
	if c.Kind.numeric() {
		b.WriteByte(' ')
		b.WriteString(string(c.Op))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatFloat(c.Value, 'g', -1, 64))
	}
	return b.String()
}

// UnmarshalJSON accepts the object form or the text form ("stat health >= 40").
func (c *Condition) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		p, err := ParseCondition(s)
		if err != nil {
			return err
		}
		*c = p
		return nil
	}
	type plain Condition
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("condition: %w", err)
	}
	if err := Condition(p).Validate(); err != nil {
		return err
	}
	*c = Condition(p)
	return nil
}

// Holds evaluates the condition against v and says why, e.g. "stat health
// is 35, want >= 40".
func (c Condition) Holds(v View) (bool, string) {
	var ok bool
	var why string
	switch c.Kind {
	case CondStat, CondReputation, CondPerception:
		var have float64
		switch c.Kind {
		case CondStat:
			var found bool
			if have, found = v.Stat(c.Key); !found {
				return c.Not, fmt.Sprintf("stat %s is not defined", c.Key)
			}
		case CondReputation:
			have = v.Reputation(c.Key)
		default:
			have = v.Perception(c.Key)
		}
		ok = c.Op.holds(have, c.Value)
		why = fmt.Sprintf("%s %s is %s, want %s %s", c.Kind, c.Key, num(have), c.Op, num(c.Value))
	case CondFlag:
		ok = v.Flag(c.Key)
		why = fmt.Sprintf("flag %s is %s", c.Key, map[bool]string{true: "set", false: "unset"}[ok])
	case CondLocation:
		here := v.Location()
		ok = here == c.Key
		why = fmt.Sprintf("player is at %q, want %q", here, c.Key)
	case CondItem:
		ok = v.HasItem(c.Key)
		why = fmt.Sprintf("player %s %s", map[bool]string{true: "has", false: "lacks"}[ok], c.Key)
	default:
		return false, fmt.Sprintf("unknown condition kind %q", c.Kind)
	}
	if c.Not {
		return !ok, "not: " + why
	}
	return ok, why
}

func num(f float64) string { return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64) }
