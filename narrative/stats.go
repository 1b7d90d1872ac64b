package narrative

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/world"
)

// StatDef defines a campaign stat (seed 001 §6.2.8): a named number with
// a range that gates, modifies or depletes. A stat scoped to an NPC (from
// stats/npc.owen.chemistry.json, or an NPC profile's inline stats) has
// that NPC in NPC.
type StatDef struct {
	ID               string `json:"id"` // "health", or "npc.owen.chemistry" for an NPC's
	Label            string `json:"label,omitempty"`
	Min              int    `json:"min"`
	Max              int    `json:"max"`
	Default          int    `json:"default"`
	Display          string `json:"display,omitempty"`
	Category         string `json:"category,omitempty"`
	Hidden           bool   `json:"hidden,omitempty"`
	BehavioralPrompt string `json:"behavioral_prompt,omitempty"`
	NPC              string `json:"npc,omitempty"` // "" for the player's stats
	// Bands optionally name what a range of values means, so a narrator
	// without the prose's judgement (the offline one) knows which applies.
	Bands []Band `json:"bands,omitempty"`
}

// Band is a range of a stat's values (inclusive) and what it means.
type Band struct {
	Min    int    `json:"min"`
	Max    int    `json:"max"`
	Prompt string `json:"prompt"`
}

// MaxPromptBytes bounds a behavioural prompt.
const MaxPromptBytes = 8 << 10

// FromWorld converts the world's stat definition, reading the NPC scope
// from an npc.<id>.<stat> ID.
func FromWorld(d world.StatDef) StatDef {
	s := StatDef{ID: d.ID, Label: d.Label, Min: d.Min, Max: d.Max, Default: d.Default, Display: d.Display,
		Category: d.Category, Hidden: d.Hidden, BehavioralPrompt: d.Prompt}
	if rest, ok := strings.CutPrefix(d.ID, "npc."); ok {
		if npc, _, ok := strings.Cut(rest, "."); ok {
			s.NPC = npc
		}
	}
	return s
}

// Key is the stat's key in a values map: its ID, prefixed npc.<id>. when
// it is scoped to an NPC and the ID does not already say so.
func (d StatDef) Key() string {
	if d.NPC == "" || strings.HasPrefix(d.ID, "npc."+d.NPC+".") {
		return d.ID
	}
	return "npc." + d.NPC + "." + d.ID
}

// Name is the stat's own name, without an NPC prefix: "chemistry".
func (d StatDef) Name() string {
	if d.NPC != "" {
		return strings.TrimPrefix(d.ID, "npc."+d.NPC+".")
	}
	return d.ID
}

// StatePath is where the stat lives in session state (§6.2.8):
// player.stats.health or npcs.owen.stats.chemistry.
func (d StatDef) StatePath() string {
	if d.NPC != "" {
		return "npcs." + d.NPC + ".stats." + d.Name()
	}
	return "player.stats." + d.ID
}

// Clamp keeps v within the stat's range (§6.2.8: a patch setting health
// to -5 is clamped to 0).
func (d StatDef) Clamp(v int) int { return max(d.Min, min(d.Max, v)) }

// Validate checks the definition's range, default, prompt and bands.
func (d StatDef) Validate() error {
	switch {
	case d.ID == "" || len(d.ID) > MaxNameBytes || strings.ContainsFunc(d.ID, func(r rune) bool { return r <= ' ' }):
		return fmt.Errorf("stat %q: the id must be 1 to %d bytes without spaces", truncate(d.ID, 40), MaxNameBytes)
	case d.Max < d.Min:
		return fmt.Errorf("stat %s: range %d..%d has max below min", d.ID, d.Min, d.Max)
	case len(d.BehavioralPrompt) > MaxPromptBytes:
		return fmt.Errorf("stat %s: behavioral_prompt is %d bytes; the limit is %d", d.ID, len(d.BehavioralPrompt), MaxPromptBytes)
	case len(d.Bands) > MaxNames:
		return fmt.Errorf("stat %s: %d bands; the limit is %d", d.ID, len(d.Bands), MaxNames)
	case len(d.NPC) > MaxNameBytes:
		return fmt.Errorf("stat %s: npc name is %d bytes; the limit is %d", d.ID, len(d.NPC), MaxNameBytes)
	}
	for _, b := range d.Bands {
		if b.Max < b.Min || len(b.Prompt) > MaxPromptBytes {
			return fmt.Errorf("stat %s: band %d..%d must have max ≥ min and a prompt under %d bytes", d.ID, b.Min, b.Max, MaxPromptBytes)
		}
	}
	return nil
}

// InitStats returns every stat's starting value by Key: its default,
// clamped into its range (so a default left at 0 below a minimum of 1
// starts at 1). NPC-scoped stats get keys of their own, npc.<id>.<stat>.
func InitStats(defs []StatDef) (map[string]int, error) {
	out := make(map[string]int, len(defs))
	for _, d := range defs {
		if err := d.Validate(); err != nil {
			return nil, err
		}
		k := d.Key()
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("stat %s is defined twice", k)
		}
		out[k] = d.Clamp(d.Default)
	}
	return out, nil
}

// SetStat sets the stat with key to v clamped into its range, returning
// the value stored.
func SetStat(defs []StatDef, values map[string]int, key string, v int) (int, error) {
	i := slices.IndexFunc(defs, func(d StatDef) bool { return d.Key() == key })
	if i < 0 {
		return 0, fmt.Errorf("no stat %q: the campaign defines %s", key, statKeys(defs))
	}
	v = defs[i].Clamp(v)
	values[key] = v
	return v, nil
}

func statKeys(defs []StatDef) string {
	if len(defs) == 0 {
		return "no stats"
	}
	ks := make([]string, len(defs))
	for i, d := range defs {
		ks[i] = d.Key()
	}
	slices.Sort(ks)
	return strings.Join(ks, ", ")
}

// InlineStat is a stat written inline in an NPC profile (§6.2.8 option 1):
// {"value": 3, "range": "0-10"}.
type InlineStat struct {
	Value int    `json:"value"`
	Range string `json:"range"`
}

// InlineStats turns an NPC profile's inline stats into definitions scoped
// to that NPC, in name order.
func InlineStats(npc string, stats map[string]InlineStat) ([]StatDef, error) {
	var out []StatDef
	for _, n := range slices.Sorted(maps.Keys(stats)) {
		s := stats[n]
		lo, hi, err := ParseRange(s.Range)
		if err != nil {
			return nil, fmt.Errorf("npc %s stat %s: %w", npc, n, err)
		}
		d := StatDef{ID: "npc." + npc + "." + n, NPC: npc, Min: lo, Max: hi, Default: s.Value, Category: "relationship"}
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("npc %s: %w", npc, err)
		}
		out = append(out, d)
	}
	return out, nil
}

var rangeRE = regexp.MustCompile(`^\s*(-?\d{1,9})\s*(?:-|–|\.\.|to)\s*(-?\d{1,9})\s*$`)

// ParseRange reads an inline stat range: "0-10", "-100..100", "1 to 5".
func ParseRange(s string) (lo, hi int, err error) {
	if len(s) > 64 {
		return 0, 0, fmt.Errorf("range is %d bytes; write it like \"0-10\"", len(s))
	}
	m := rangeRE.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, fmt.Errorf("range %q: write it like \"0-10\" or \"-100..100\"", s)
	}
	lo, _ = strconv.Atoi(m[1])
	hi, _ = strconv.Atoi(m[2])
	if hi < lo {
		return 0, 0, fmt.Errorf("range %q: the maximum is below the minimum", s)
	}
	return lo, hi, nil
}

// MergeStats combines stat files with NPC profiles' inline stats; when
// both define the same key the file wins (§6.2.8: richer behavioural
// guidance).
func MergeStats(files, inline []StatDef) []StatDef {
	out := slices.Clone(files)
	for _, d := range inline {
		if !slices.ContainsFunc(files, func(f StatDef) bool { return f.Key() == d.Key() }) {
			out = append(out, d)
		}
	}
	return out
}

// BehaviouralPrompts renders the stats for the narrator's system context
// (§6.2.8 "Narrator AI Integration"), one line each with range, current
// value and behavioural prose, player stats first, then each NPC's, each
// group by category and name. Hidden stats appear only for a GM viewer
// (the narrator itself), marked so they are never said aloud; a player's
// view never learns they exist.
func BehaviouralPrompts(defs []StatDef, values map[string]int, viewer access.Level) string {
	var shown []StatDef
	for _, d := range defs {
		if !d.Hidden || viewer.CanSee(access.GM) {
			shown = append(shown, d)
		}
	}
	if len(shown) == 0 {
		return ""
	}
	slices.SortFunc(shown, func(a, b StatDef) int {
		return cmp.Or(cmp.Compare(a.NPC, b.NPC), cmp.Compare(a.Category, b.Category), cmp.Compare(a.Name(), b.Name()))
	})
	var b strings.Builder
	b.WriteString("CAMPAIGN STATS:\n")
	for _, d := range shown {
		v, ok := values[d.Key()]
		if !ok {
			v = d.Clamp(d.Default)
		}
		fmt.Fprintf(&b, "- %s (%s", d.Name(), cmp.Or(d.Category, "general"))
		if d.NPC != "" {
			fmt.Fprintf(&b, ", NPC: %s", title(d.NPC))
		}
		if d.Hidden {
			b.WriteString(", hidden: never reveal it to the player")
		}
		fmt.Fprintf(&b, "): %d-%d, currently %d.", d.Min, d.Max, v)
		if p := strings.Join(strings.Fields(d.BehavioralPrompt), " "); p != "" {
			b.WriteString(` "` + p + `"`)
		}
		for _, band := range d.Bands {
			if v >= band.Min && v <= band.Max {
				fmt.Fprintf(&b, " Now (%d-%d): %s", band.Min, band.Max, band.Prompt)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// title turns an ID into a display name: blacksmith_aldric → Blacksmith Aldric.
func title(id string) string {
	f := strings.FieldsFunc(id, func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
	for i, w := range f {
		r, n := utf8.DecodeRuneInString(w)
		f[i] = string(unicode.ToUpper(r)) + w[n:]
	}
	return strings.Join(f, " ")
}
