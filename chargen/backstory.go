package chargen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Story is a character's personality and history.
type Story struct {
	PersonalityTraits []string `json:"personality_traits"`
	Ideals            []string `json:"ideals"`
	Bonds             []string `json:"bonds"`
	Flaws             []string `json:"flaws"`
	Backstory         string   `json:"backstory"`
}

// Storyteller writes a character's story. Templates is the offline one;
// a model-written storyteller implements the same interface.
type Storyteller interface {
	Story(ctx context.Context, ch *Character, seed uint64) (Story, error)
}

// Templates tells stories from the background's suggested characteristics
// and fixed sentence templates: offline and deterministic for a seed.
type Templates struct{}

var _ Storyteller = Templates{}

var (
	openings = []string{
		"%[1]s is a %[2]s %[3]s who %[4]s.",
		"Before the road, %[1]s %[4]s; now the %[2]s travels as a %[3]s.",
		"Ask %[1]s about the old days and the %[2]s will tell you they %[4]s, long before anyone called them a %[3]s.",
	}
	turns = map[string][]string{
		"barbarian": {"A rage that frightened even kin drove them out into the wilds."},
		"bard":      {"A song learned in a roadside inn opened doors that coin could not."},
		"cleric":    {"A voice in a quiet hour named them, and they answered."},
		"druid":     {"An old grove accepted them, and its keepers taught them its tongue."},
		"fighter":   {"Steel and drill made them what they are, one hard lesson at a time."},
		"monk":      {"A monastery on a cold hill taught them that stillness is a weapon."},
		"paladin":   {"They swore an oath on a night they would rather forget, and have kept it since."},
		"ranger":    {"The borderlands taught them tracks, weather and patience."},
		"rogue":     {"Quick hands and a quicker tongue kept them alive when little else did."},
		"sorcerer":  {"Dragon blood woke in them one feverish summer, and the world has not been quiet since."},
		"warlock":   {"A bargain struck in desperation still hums in their veins."},
		"wizard":    {"Years bent over borrowed books earned them a handful of true words of power."},
	}
)

// Story picks two personality traits, an ideal, a bond and a flaw from
// the background and writes a few sentences from them.
func (Templates) Story(ctx context.Context, ch *Character, seed uint64) (Story, error) {
	if err := ctx.Err(); err != nil {
		return Story{}, err
	}
	bg, ok := backgrounds[ch.Background]
	if !ok {
		return Story{}, refuse("chargen.story_background", map[string]any{"Background": quoted(ch.Background)}, "unknown background %q", ch.Background)
	}
	r := rand.New(rand.NewPCG(seed, seed^0x5deece66d))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	i := r.IntN(len(bg.Traits))
	j := (i + 1 + r.IntN(len(bg.Traits)-1)) % len(bg.Traits)
	s := Story{
		PersonalityTraits: []string{bg.Traits[i], bg.Traits[j]},
		Ideals:            []string{pick(bg.Ideals)},
		Bonds:             []string{pick(bg.Bonds)},
		Flaws:             []string{pick(bg.Flaws)},
	}
	ideal, _, _ := strings.Cut(s.Ideals[0], ".")
	var b strings.Builder
	fmt.Fprintf(&b, pick(openings), ch.Name, strings.ToLower(ch.RaceName), strings.ToLower(ch.ClassName), pick(bg.Past))
	b.WriteString(" ")
	b.WriteString(pick(turns[ch.Class]))
	fmt.Fprintf(&b, " %s holds to %s above all, and one thing never leaves their mind: %s",
		ch.Name, strings.ToLower(ideal), lowerFirst(s.Bonds[0]))
	s.Backstory = b.String()
	return s, nil
}

func lowerFirst(s string) string {
	if s == "" || strings.HasPrefix(s, "I ") {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
